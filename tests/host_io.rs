//! Host I/O in generated code: Infeed, Outfeed, Send and Recv through the fn's `ctx` on the
//! thread runner with host queues (`ThreadRunner::run_host`), against the evaluator on the
//! same queues (`eval::evaluate_on`). No XLA oracle: jaxlib gives no way to feed XLA:CPU's
//! infeed or read its outfeed from Python (the transfer-manager calls are not exposed).

use xla_aot::core::eval::evaluate_on;
use xla_aot::kernels::collectives::{CollectiveError, HostQueues, ThreadRunner};
use xla_aot::{Literal, Tensor, Token, D0, D1};

xla_aot::xla! {
    /// A stream: `n` values of the infeed summed in a While loop, each partial sum written to
    /// the outfeed, the total sent to the host on channel 7.
    pub fn stream(t: token, n: s32[]) -> (f32[3], token) {
        let r = While(
            |s: (s32[], s32[], f32[3], token)| GetTupleElement(s, index = 0) < GetTupleElement(s, index = 1),
            |s: (s32[], s32[], f32[3], token)| {
                let i = Infeed(GetTupleElement(s, index = 3), shape = f32[3], config = "x");
                let acc = GetTupleElement(s, index = 2) + GetTupleElement(i, index = 0);
                let t = Outfeed(acc, GetTupleElement(i, index = 1), outfeed_config = "partial");
                Tuple(GetTupleElement(s, index = 0) + 1, GetTupleElement(s, index = 1), acc, t)
            },
            Tuple(0i32, n, Broadcast(0.0f32, broadcast_sizes = [3]), t),
        );
        let total = GetTupleElement(r, index = 2);
        let t = Send(total, GetTupleElement(r, index = 3), channel_id = 7, is_host_transfer = true);
        Tuple(total, t)
    }
    /// Two Outfeeds ordered by their tokens (the second reads nothing the first computes), and a
    /// Recv from the host of a tuple.
    pub fn ordered(t: token, x: s32[4]) -> (s32[4], f32[], token) {
        let t1 = Outfeed(x * 2, t);
        let t2 = Outfeed(Tuple(x, x + 1), t1, outfeed_config = "second");
        let r = Recv(t2, shape = (s32[4], f32[]), channel_id = 3, is_host_transfer = true);
        let v = GetTupleElement(r, index = 0);
        Tuple(GetTupleElement(v, index = 0) + x, GetTupleElement(v, index = 1), GetTupleElement(r, index = 1))
    }
    /// A Send whose token nobody reads: it still runs.
    pub fn unread(t: token, x: f32[2]) -> f32[2] {
        let sent = Send(x, t, channel_id = 1, is_host_transfer = true);
        x + 1.0
    }
    /// Device to device: device 0 sends on channel 2, device 1 receives.
    pub fn to_peer(t: token, x: f32[2]) -> (f32[2], token) {
        let s = Send(x * 10.0, t, channel_id = 2);
        let r = Recv(s, shape = f32[2], channel_id = 2);
        Tuple(GetTupleElement(r, index = 0), GetTupleElement(r, index = 1))
    }
}

fn err(e: xla_aot::core::Error) -> CollectiveError {
    CollectiveError::Transport(e.to_string())
}

fn feed_stream(host: &HostQueues, n: usize) {
    for k in 0..n {
        host.push_infeed(0, &[k as f32, 1.0, -0.5 * k as f32]);
    }
}

#[test]
fn infeed_stream_in_a_while_loop_against_the_evaluator() {
    let n = 4;
    let gen_host = HostQueues::new();
    feed_stream(&gen_host, n);
    let nt = Tensor::<i32, D0>::scalar(n as i32);
    let out = ThreadRunner::new(1, 1).run_host(&gen_host, |ctx| stream(ctx, Token, &nt));
    let (total, _t) = out.into_iter().next().unwrap().unwrap();
    assert_eq!(total.as_slice(), &[6.0, 4.0, -3.0]);
    assert_eq!(gen_host.infeed_len(0), 0);

    let ev_host = HostQueues::new();
    feed_stream(&ev_host, n);
    let comp = stream::computation();
    let out = ThreadRunner::new(1, 1).run_host(&ev_host, |ctx| {
        evaluate_on(&comp, &[Literal::Token, Literal::scalar(n as i32)], ctx).map_err(err)
    });
    let want = out.into_iter().next().unwrap().unwrap();
    let Literal::Tuple(want) = want else {
        panic!("a tuple")
    };
    assert_eq!(want[0], total.to_literal());
    // The same outfeed values, in the same order, and the same value sent to the host.
    for k in 0..n {
        let g = gen_host.pop_outfeed::<f32>(0).unwrap();
        let e = ev_host.pop_outfeed::<f32>(0).unwrap();
        assert_eq!(g, e, "partial sum {k}");
    }
    assert_eq!(gen_host.outfeed_len(0), 0);
    assert_eq!(gen_host.pop_channel::<f32>(7), Some(vec![6.0, 4.0, -3.0]));
    assert_eq!(ev_host.pop_channel::<f32>(7), Some(vec![6.0, 4.0, -3.0]));
}

#[test]
fn an_empty_infeed_queue_is_an_error_not_a_hang() {
    let host = HostQueues::new();
    feed_stream(&host, 2);
    let nt = Tensor::<i32, D0>::scalar(3);
    let out = ThreadRunner::new(1, 1).run_host(&host, |ctx| stream(ctx, Token, &nt));
    let e = out.into_iter().next().unwrap().unwrap_err();
    assert!(
        e.to_string().contains("infeed queue of device 0 is empty"),
        "{e}"
    );
    // Two partial sums went out before the third Infeed failed.
    assert_eq!(host.outfeed_len(0), 2);
    // The evaluator says the same.
    let host = HostQueues::new();
    let comp = stream::computation();
    let out = ThreadRunner::new(1, 1).run_host(&host, |ctx| {
        evaluate_on(&comp, &[Literal::Token, Literal::scalar(1i32)], ctx).map_err(err)
    });
    let e = out.into_iter().next().unwrap().unwrap_err();
    assert!(e.to_string().contains("is empty"), "{e}");
}

#[test]
fn two_outfeeds_in_token_order_and_a_tuple_recv() {
    let x = Tensor::<i32, D1<4>>::from_vec(vec![1, -2, 3, 40]).unwrap();
    let run = |host: &HostQueues, generated: bool| {
        host.push_channel(3, &[10i32, 20, 30, 40]);
        host.push_channel(3, &[2.5f32]);
        let comp = ordered::computation();
        let out = ThreadRunner::new(1, 1).run_host(host, |ctx| {
            if generated {
                let (y, f, _t) = ordered(ctx, Token, &x)?;
                Ok((y.to_literal(), f.to_literal()))
            } else {
                let r = evaluate_on(&comp, &[Literal::Token, x.to_literal()], ctx).map_err(err)?;
                let Literal::Tuple(r) = r else {
                    panic!("a tuple")
                };
                Ok((r[0].clone(), r[1].clone()))
            }
        });
        out.into_iter().next().unwrap().unwrap()
    };
    for generated in [true, false] {
        let host = HostQueues::new();
        let (y, f) = run(&host, generated);
        assert_eq!(y.as_slice::<i32>(), Some(&[11, 18, 33, 80][..]));
        assert_eq!(f.as_slice::<f32>(), Some(&[2.5][..]));
        assert_eq!(host.pop_outfeed::<i32>(0), Some(vec![2, -4, 6, 80]));
        assert_eq!(host.pop_outfeed::<i32>(0), Some(vec![1, -2, 3, 40]));
        assert_eq!(host.pop_outfeed::<i32>(0), Some(vec![2, -1, 4, 41]));
        assert_eq!(host.outfeed_len(0), 0);
    }
}

#[test]
fn a_send_nobody_reads_still_runs() {
    let host = HostQueues::new();
    let x = Tensor::<f32, D1<2>>::from_vec(vec![1.0, 2.0]).unwrap();
    let out = ThreadRunner::new(1, 1).run_host(&host, |ctx| unread(ctx, Token, &x));
    assert_eq!(out[0].as_ref().unwrap().as_slice(), &[2.0, 3.0]);
    assert_eq!(host.pop_channel::<f32>(1), Some(vec![1.0, 2.0]));
}

#[test]
fn send_and_recv_between_two_devices() {
    let host = HostQueues::new();
    // Device 1's value goes first: device 0 receives it, device 1 receives device 0's.
    let x = [
        Tensor::<f32, D1<2>>::from_vec(vec![1.0, 2.0]).unwrap(),
        Tensor::<f32, D1<2>>::from_vec(vec![3.0, 4.0]).unwrap(),
    ];
    let out = ThreadRunner::new(2, 1).run_host(&host, |ctx| {
        let (r, _t) = to_peer(ctx, Token, &x[ctx.device_id() as usize])?;
        Ok(r.as_slice().to_vec())
    });
    let mut got: Vec<Vec<f32>> = out.into_iter().map(Result::unwrap).collect();
    got.sort_by(|a, b| a[0].total_cmp(&b[0]));
    // Each Recv takes one of the two values sent on the channel.
    assert_eq!(got, vec![vec![10.0, 20.0], vec![30.0, 40.0]]);
    assert_eq!(host.channel_len(2), 0);
}

#[test]
fn without_host_queues_host_io_is_an_error() {
    // The MPI transport and any other without host queues: the trait's default bodies.
    struct Bare;
    impl xla_aot::Collectives for Bare {
        fn replica_id(&self) -> u32 {
            0
        }
        fn partition_id(&self) -> u32 {
            0
        }
        fn num_replicas(&self) -> u32 {
            1
        }
        fn num_partitions(&self) -> u32 {
            1
        }
        fn send(&self, _: u32, _: &[u8]) -> Result<(), CollectiveError> {
            unreachable!()
        }
        fn recv(&self, _: u32, _: &mut [u8]) -> Result<(), CollectiveError> {
            unreachable!()
        }
    }
    let x = Tensor::<f32, D1<2>>::from_vec(vec![1.0, 2.0]).unwrap();
    let e = unread(&Bare, Token, &x).unwrap_err();
    assert!(e.to_string().contains("no host queues"), "{e}");
}

xla_aot::xla! {
    /// An Infeed whose data is stored column-major in the program.
    pub fn col_major_in(t: token) -> (f32[2, 3], token) {
        let i = Infeed(t, shape = f32[2, 3]{0, 1});
        Tuple(GetTupleElement(i, index = 0) * 2.0, GetTupleElement(i, index = 1))
    }
    /// An Outfeed of a column-major operand.
    pub fn col_major_out(t: token, x: f32[2, 3]{0, 1}) -> token {
        Outfeed(x, t)
    }
}

/// The host queues carry values as a row-major literal holds them (XLA's transfers take and
/// give literals, whose values are logical): a layout in the program changes where the
/// program keeps them, not what the host pushes or pops.
#[test]
fn queues_carry_row_major_values_whatever_the_programs_layout() {
    let fed = [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0];
    for generated in [true, false] {
        let host = HostQueues::new();
        host.push_infeed(0, &fed);
        let comp = col_major_in::computation();
        let out = ThreadRunner::new(1, 1).run_host(&host, |ctx| {
            if generated {
                Ok(col_major_in(ctx, Token)?.0.to_literal())
            } else {
                let r = evaluate_on(&comp, &[Literal::Token], ctx).map_err(err)?;
                let Literal::Tuple(r) = r else {
                    panic!("a tuple")
                };
                Ok(r[0].clone())
            }
        });
        let y = out.into_iter().next().unwrap().unwrap();
        // Row i, column j of the infeed value is fed[3 i + j].
        assert_eq!(
            y.as_slice::<f32>(),
            Some(&[2.0, 4.0, 6.0, 8.0, 10.0, 12.0][..]),
            "generated: {generated}"
        );
    }
    // x's storage is column-major: [1, 2, 3, 4, 5, 6] holds [[1, 3, 5], [2, 4, 6]].
    let x = Tensor::<f32, xla_aot::D2<2, 3>, xla_aot::Mtm2<0, 1>>::from_vec(fed.to_vec()).unwrap();
    for generated in [true, false] {
        let host = HostQueues::new();
        let comp = col_major_out::computation();
        let out = ThreadRunner::new(1, 1).run_host(&host, |ctx| {
            if generated {
                col_major_out(ctx, Token, &x)?;
            } else {
                evaluate_on(&comp, &[Literal::Token, x.to_literal()], ctx).map_err(err)?;
            }
            Ok(())
        });
        out.into_iter().next().unwrap().unwrap();
        assert_eq!(
            host.pop_outfeed::<f32>(0),
            Some(vec![1.0, 3.0, 5.0, 2.0, 4.0, 6.0]),
            "generated: {generated}"
        );
    }
}
