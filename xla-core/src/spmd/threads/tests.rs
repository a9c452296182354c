use super::*;

#[test]
fn ids_follow_xla_flattening() {
    let ids = run_threads(2, 3, |c| {
        Ok((
            c.replica_id(),
            c.partition_id(),
            c.device_id(),
            c.num_devices(),
        ))
    });
    let ids: Vec<_> = ids.into_iter().map(Result::unwrap).collect();
    for (d, &(r, p, dev, n)) in ids.iter().enumerate() {
        assert_eq!((r, p, dev, n), (d as u32 / 3, d as u32 % 3, d as u32, 6));
    }
}

#[test]
fn all_gather_gives_every_device_the_group_in_order() {
    let out = run_threads(4, 1, |c| {
        let me = c.device_id() as u8;
        let mut recv = [0u8; 8];
        c.all_gather(&[3, 1, 0, 2], &[me, me + 10], &mut recv)?;
        Ok(recv)
    });
    for r in out {
        assert_eq!(r.unwrap(), [3, 13, 1, 11, 0, 10, 2, 12]);
    }
}

#[test]
fn all_to_all_transposes_chunks() {
    let out = run_threads(3, 1, |c| {
        let me = c.device_id() as u8;
        let send = [me * 10, me * 10 + 1, me * 10 + 2];
        let mut recv = [0u8; 3];
        c.all_to_all(&[0, 1, 2], &send, &mut recv)?;
        Ok(recv)
    });
    for (d, r) in out.into_iter().enumerate() {
        let d = d as u8;
        assert_eq!(r.unwrap(), [d, 10 + d, 20 + d]);
    }
}

#[test]
fn messages_between_a_pair_arrive_in_order() {
    let out = run_threads(2, 1, |c| {
        if c.device_id() == 0 {
            for i in 0..100u8 {
                c.send(1, &[i])?;
            }
            Ok(vec![])
        } else {
            let mut got = vec![];
            for _ in 0..100 {
                let mut b = [0u8];
                c.recv(0, &mut b)?;
                got.push(b[0]);
            }
            Ok(got)
        }
    });
    assert_eq!(out[1].as_ref().unwrap(), &(0..100).collect::<Vec<u8>>());
}

#[test]
fn a_panicking_device_fails_its_peers_without_a_hang() {
    let start = Instant::now();
    let out = ThreadRunner::new(3, 1)
        .timeout(Duration::from_secs(30))
        .run(|c| {
            if c.device_id() == 1 {
                panic!("device one gives up");
            }
            let mut recv = [0u8; 3];
            c.all_gather(&[0, 1, 2], &[7], &mut recv)?;
            Ok(recv)
        });
    assert!(
        start.elapsed() < Duration::from_secs(20),
        "peers waited for the time-out"
    );
    match &out[1] {
        Err(CollectiveError::Transport(m)) => assert!(m.contains("device one gives up"), "{m}"),
        other => panic!("{other:?}"),
    }
    for d in [0, 2] {
        match &out[d] {
            Err(CollectiveError::PeerFailed { peer: 1, reason }) => {
                assert!(reason.contains("panicked"), "{reason}")
            }
            other => panic!("device {d}: {other:?}"),
        }
    }
}

#[test]
fn a_device_returning_err_fails_its_peers() {
    let out = run_threads(2, 1, |c| {
        if c.device_id() == 0 {
            return Err(CollectiveError::Transport("bad input".into()));
        }
        let mut b = [0u8; 4];
        c.recv(0, &mut b)?;
        Ok(())
    });
    assert!(
        matches!(&out[1], Err(CollectiveError::PeerFailed { peer: 0, reason }) if reason.contains("bad input"))
    );
}

#[test]
fn a_device_that_finished_without_sending_fails_the_waiter() {
    let out = run_threads(2, 1, |c| {
        if c.device_id() == 1 {
            let mut b = [0u8; 1];
            c.recv(0, &mut b)?;
        }
        Ok(())
    });
    assert!(out[0].is_ok());
    assert!(
        matches!(&out[1], Err(CollectiveError::PeerFailed { peer: 0, reason }) if reason.contains("finished"))
    );
}

#[test]
fn a_silent_peer_times_out() {
    let out = ThreadRunner::new(2, 1)
        .timeout(Duration::from_millis(100))
        .run(|c| {
            if c.device_id() == 0 {
                // Waits for device 1, which is itself waiting: neither sends, both time out.
                let mut b = [0u8; 1];
                c.recv(1, &mut b)?;
            } else {
                let mut b = [0u8; 1];
                c.recv(0, &mut b)?;
            }
            Ok(())
        });
    let timed_out = out
        .iter()
        .filter(|r| matches!(r, Err(CollectiveError::Timeout { waited, .. }) if *waited >= Duration::from_millis(100)))
        .count();
    // The first to time out fails, so the other may see PeerFailed instead: at least one timed out.
    assert!(timed_out >= 1, "{out:?}");
    assert!(out.iter().all(Result::is_err));
    let msg = out
        .iter()
        .find_map(|r| {
            r.as_ref()
                .err()
                .filter(|e| matches!(e, CollectiveError::Timeout { .. }))
        })
        .unwrap()
        .to_string();
    assert!(msg.contains("did not send within"), "{msg}");
}

#[test]
fn a_size_mismatch_is_an_err() {
    let out = run_threads(2, 1, |c| {
        let mut recv = vec![0u8; 2 * (c.device_id() as usize + 1)];
        let send = vec![1u8; c.device_id() as usize + 1];
        c.all_gather(&[0, 1], &send, &mut recv)
    });
    assert!(
        out.iter()
            .any(|r| matches!(r, Err(CollectiveError::Mismatch { .. }))),
        "{out:?}"
    );
    assert!(out.iter().all(Result::is_err), "{out:?}");
}

#[test]
fn exchanging_with_oneself_or_outside_the_run_is_an_err() {
    let out = run_threads(2, 1, |c| c.send(c.device_id(), &[1]));
    assert!(out
        .iter()
        .all(|r| matches!(r, Err(CollectiveError::Transport(_)))));
    let out = run_threads(1, 1, |c| c.send(5, &[1]));
    assert!(matches!(&out[0], Err(CollectiveError::Transport(m)) if m.contains("device 5")));
}

#[test]
fn a_wrong_length_names_the_op_the_buffer_and_both_lengths() {
    let e = crate::spmd::expect_len("all_gather", "the receive buffer", "bytes", 3, 4).unwrap_err();
    let msg = e.to_string();
    assert!(
        msg.contains("all_gather")
            && msg.contains("the receive buffer holds 3 bytes, the op needs 4"),
        "{msg}"
    );
    assert!(crate::spmd::expect_len("AllReduce", "the result", "elements", 5, 5).is_ok());
}

#[test]
fn all_reduce_folds_in_group_order_with_short_empty_and_non_wire_chunks() {
    // 2 elements over 3 devices: chunks of 1, 1 and 0 elements. Complex and bool have no
    // in-memory wire form (staged path); f32 has one. The group is listed out of order and
    // the fold is not commutative, so the order shows.
    let group = [2u32, 0, 1];
    let out = run_threads(3, 1, |c| {
        // Both forms: by lent messages (the threads) and by all_to_all + all_gather (as MPI).
        let by_messages = all_reduce_three(c, &group)?;
        let by_collectives = all_reduce_three(&crate::spmd::MessagesOnly(c), &group)?;
        assert!(
            bits(&by_messages) == bits(&by_collectives),
            "device {}: the two AllReduce forms differ",
            c.device_id()
        );
        Ok(by_messages)
    });
    // fold(f, x@2, x@0, x@1) = f(f(x2, x0), x1).
    let fold = |x: [f32; 3], f: &dyn Fn(f32, f32) -> f32| f(f(x[2], x[0]), x[1]);
    let want_re = [
        fold([0.0, 1.0, 2.0], &|a, b| a * 2.0 + b),
        fold([0.0, 10.0, 20.0], &|a, b| a * 2.0 + b),
    ];
    let want_im = [
        fold([1.0, 1.0, 1.0], &|a, b| a * 2.0 + b),
        fold([0.0, -1.0, -2.0], &|a, b| a * 2.0 + b),
    ];
    for r in out {
        let (z, q, g) = r.unwrap();
        assert_eq!(z.map(|v| v.re), want_re);
        assert_eq!(z.map(|v| v.im), want_im);
        assert_eq!(q, [true, false, true]);
        let want: Vec<f32> = (0..5)
            .map(|k| {
                let x = |d: f32| [d, d + 0.5, -d, 1.0, 2.0][k];
                fold([x(0.0), x(1.0), x(2.0)], &|a, b| a - b)
            })
            .collect();
        assert_eq!(g.to_vec(), want);
    }
}

/// Results of [`all_reduce_three`].
type Three = ([num_complex::Complex<f32>; 2], [bool; 3], [f32; 5]);

/// The bits of an AllReduce result (NaN-proof equality).
fn bits((z, q, g): &Three) -> Vec<u32> {
    z.iter()
        .flat_map(|v| [v.re.to_bits(), v.im.to_bits()])
        .chain(q.iter().map(|&b| u32::from(b)))
        .chain(g.iter().map(|v| v.to_bits()))
        .collect()
}

/// Three AllReduces over `group` on device `c`: complex (staged) with a non-commutative fold,
/// bool, and f32 (wire form) with 5 elements over 3 members.
fn all_reduce_three(c: &dyn Collectives, group: &[DeviceId]) -> Result<Three, CollectiveError> {
    use crate::spmd::ops::all_reduce;
    use num_complex::Complex;
    let d = c.device_id() as f32;
    let x = [Complex::new(d, 1.0), Complex::new(10.0 * d, -d)];
    let mut z = [Complex::new(0.0f32, 0.0); 2];
    all_reduce(c, group, &x, &mut z, &mut |a, b| Ok(a * 2.0 + b))?;
    let p = [c.device_id() == 1, false, c.device_id() == 0];
    let mut q = [false; 3];
    all_reduce(c, group, &p, &mut q, &mut |a, b| Ok(a || b))?;
    let f = [d, d + 0.5, -d, 1.0, 2.0];
    let mut g = [0f32; 5];
    all_reduce(c, group, &f, &mut g, &mut |a, b| Ok(a - b))?;
    Ok((z, q, g))
}
