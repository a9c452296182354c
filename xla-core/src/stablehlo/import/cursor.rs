//! A cursor over MLIR text: whitespace and `//` comments skipped, identifiers, numbers, strings
//! and punctuation read on demand (MLIR's grammar is context-sensitive: `2x3xf32` is one type,
//! `x` alone a separator), every position known as line:column.

use super::{ImportError, Pos, Result};

/// Reads MLIR text left to right.
pub(super) struct Cursor<'a> {
    text: &'a str,
    pos: usize,
    line_starts: Vec<usize>,
    depth: usize,
}

/// Brackets of attributes and types nest at most this deep (hostile input must not overflow
/// the stack).
const MAX_NESTING: usize = 200;

fn is_ident_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '$' || c == '.'
}

/// Characters of an SSA name or a block label after `%` / `^`.
fn is_suffix_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '$' || c == '.' || c == '-'
}

impl<'a> Cursor<'a> {
    /// A cursor at the start of `text`.
    pub fn new(text: &'a str) -> Self {
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Cursor {
            text,
            pos: 0,
            line_starts,
            depth: 0,
        }
    }

    /// Enters one level of nesting; `Err` when too deep. Pair with [`Cursor::leave`].
    pub fn enter(&mut self) -> Result<()> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return Err(self.err("nested too deeply"));
        }
        Ok(())
    }

    /// Leaves one level of nesting.
    pub fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    /// Line and column of byte offset `at`.
    pub fn pos_of(&self, at: usize) -> Pos {
        let line = self.line_starts.partition_point(|&s| s <= at);
        let start = self.line_starts[line - 1];
        let col = self.text[start..at.min(self.text.len())].chars().count() + 1;
        Pos {
            line: line as u32,
            col: col as u32,
        }
    }

    /// Line and column of the next token.
    pub fn here(&mut self) -> Pos {
        self.skip_ws();
        self.pos_of(self.pos)
    }

    /// A syntax error at the next token.
    pub fn err(&mut self, message: impl Into<String>) -> ImportError {
        let found: String = self.rest().chars().take(24).collect();
        let found = found.lines().next().unwrap_or("").to_string();
        let message = if found.is_empty() {
            format!("{}, found the end of the text", message.into())
        } else {
            format!("{}, found `{found}`", message.into())
        };
        ImportError::Syntax {
            message,
            pos: self.here(),
        }
    }

    /// The text from the cursor on.
    pub fn rest(&self) -> &'a str {
        &self.text[self.pos..]
    }

    /// Skips whitespace and `//` comments.
    pub fn skip_ws(&mut self) {
        loop {
            let rest = self.rest();
            let trimmed = rest.trim_start();
            self.pos += rest.len() - trimmed.len();
            if trimmed.starts_with("//") {
                self.pos += trimmed.find('\n').unwrap_or(trimmed.len());
            } else {
                return;
            }
        }
    }

    /// The next character, after whitespace.
    pub fn peek(&mut self) -> Option<char> {
        self.skip_ws();
        self.rest().chars().next()
    }

    /// True at the end of the text.
    pub fn at_end(&mut self) -> bool {
        self.peek().is_none()
    }

    /// Whether the next token starts with `s`.
    pub fn looking_at(&mut self, s: &str) -> bool {
        self.skip_ws();
        self.rest().starts_with(s)
    }

    /// Consumes `s` (punctuation) if it comes next.
    pub fn eat(&mut self, s: &str) -> bool {
        if self.looking_at(s) {
            self.pos += s.len();
            true
        } else {
            false
        }
    }

    /// Consumes the keyword `kw` if it comes next as a whole identifier.
    pub fn eat_keyword(&mut self, kw: &str) -> bool {
        if self.looking_at(kw) {
            let after = self.rest()[kw.len()..].chars().next();
            if !after.is_some_and(is_ident_char) {
                self.pos += kw.len();
                return true;
            }
        }
        false
    }

    /// Consumes `s` or fails saying it was expected.
    pub fn expect(&mut self, s: &str) -> Result<()> {
        if self.eat(s) {
            Ok(())
        } else {
            Err(self.err(format!("expected `{s}`")))
        }
    }

    /// A bare identifier (`stablehlo.add`, `tensor`, `GT`), if one comes next.
    pub fn ident(&mut self) -> Option<&'a str> {
        self.skip_ws();
        let rest = self.rest();
        if !rest.chars().next().is_some_and(is_ident_start) {
            return None;
        }
        let len = rest.find(|c: char| !is_ident_char(c)).unwrap_or(rest.len());
        self.pos += len;
        Some(&rest[..len])
    }

    /// An identifier, or an error saying what it should have been.
    pub fn expect_ident(&mut self, what: &str) -> Result<&'a str> {
        self.ident()
            .ok_or_else(|| self.err(format!("expected {what}")))
    }

    /// `%name` or `^name` (with the sigil), if one comes next.
    pub fn sigil_name(&mut self, sigil: char) -> Option<String> {
        self.skip_ws();
        let rest = self.rest();
        if !rest.starts_with(sigil) {
            return None;
        }
        let body = &rest[1..];
        let len = body
            .find(|c: char| !is_suffix_char(c))
            .unwrap_or(body.len());
        if len == 0 {
            return None;
        }
        self.pos += 1 + len;
        Some(rest[..1 + len].to_string())
    }

    /// `@symbol` or `@"quoted symbol"` (without the `@`), if one comes next.
    pub fn symbol(&mut self) -> Result<Option<String>> {
        if !self.eat("@") {
            return Ok(None);
        }
        if self.looking_at("\"") {
            return self.string().map(Some);
        }
        let rest = self.rest();
        let len = rest
            .find(|c: char| !is_suffix_char(c))
            .unwrap_or(rest.len());
        if len == 0 {
            return Err(self.err("expected a symbol name after `@`"));
        }
        self.pos += len;
        Ok(Some(rest[..len].to_string()))
    }

    /// A number as written: `-12`, `1.5e-3`, `0x7FC00000`, if one comes next.
    pub fn number(&mut self) -> Option<&'a str> {
        self.skip_ws();
        let rest = self.rest();
        let bytes = rest.as_bytes();
        let mut i = usize::from(matches!(bytes.first(), Some(b'-' | b'+')));
        if rest[i..].starts_with("0x") || rest[i..].starts_with("0X") {
            let hex = &rest[i + 2..];
            let len = hex
                .find(|c: char| !c.is_ascii_hexdigit())
                .unwrap_or(hex.len());
            if len == 0 {
                return None;
            }
            self.pos += i + 2 + len;
            return Some(&rest[..i + 2 + len]);
        }
        let digits = |i: usize| {
            rest[i..]
                .find(|c: char| !c.is_ascii_digit())
                .map_or(rest.len(), |n| i + n)
        };
        let end = digits(i);
        if end == i {
            return None;
        }
        i = end;
        if bytes.get(i) == Some(&b'.') {
            i = digits(i + 1);
        }
        if matches!(bytes.get(i), Some(b'e' | b'E')) {
            let mut j = i + 1;
            if matches!(bytes.get(j), Some(b'-' | b'+')) {
                j += 1;
            }
            let k = digits(j);
            if k > j {
                i = k;
            }
        }
        self.pos += i;
        Some(&rest[..i])
    }

    /// An integer, if one comes next (decimal or hexadecimal).
    pub fn integer(&mut self) -> Result<Option<i64>> {
        let start = self.pos;
        let Some(text) = self.number() else {
            return Ok(None);
        };
        match parse_int(text) {
            Some(v) => i64::try_from(v)
                .map(Some)
                .map_err(|_| self.int_error(start, text)),
            None => Err(self.int_error(start, text)),
        }
    }

    fn int_error(&mut self, start: usize, text: &str) -> ImportError {
        ImportError::Syntax {
            message: format!("expected an integer, found `{text}`"),
            pos: self.pos_of(start),
        }
    }

    /// An integer, or an error saying what it should have been.
    pub fn expect_integer(&mut self, what: &str) -> Result<i64> {
        self.integer()?
            .ok_or_else(|| self.err(format!("expected {what}")))
    }

    /// A `"..."` string with MLIR's escapes (`\"`, `\\`, `\n`, `\XX` hex).
    pub fn string(&mut self) -> Result<String> {
        self.expect("\"")?;
        let mut out = String::new();
        let mut chars = self.rest().char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                '"' => {
                    self.pos += i + 1;
                    return Ok(out);
                }
                '\\' => match chars.next() {
                    Some((_, 'n')) => out.push('\n'),
                    Some((_, 't')) => out.push('\t'),
                    Some((_, e @ ('"' | '\\'))) => out.push(e),
                    Some((_, h)) => {
                        let l = chars.next().map(|(_, c)| c);
                        let byte = l
                            .and_then(|l| u8::from_str_radix(&format!("{h}{l}"), 16).ok())
                            .ok_or_else(|| self.err("invalid escape in a string"))?;
                        out.push(char::from(byte));
                    }
                    None => break,
                },
                c => out.push(c),
            }
        }
        Err(self.err("unterminated string"))
    }

    /// Skips a balanced group opened by the character at the cursor (`(`, `[`, `{` or `<`),
    /// strings included; returns the text skipped.
    pub fn skip_balanced(&mut self) -> Result<&'a str> {
        self.skip_ws();
        let start = self.pos;
        let mut depth = 0usize;
        let mut in_string = false;
        let mut escaped = false;
        for (i, c) in self.rest().char_indices() {
            if in_string {
                match (escaped, c) {
                    (true, _) => escaped = false,
                    (false, '\\') => escaped = true,
                    (false, '"') => in_string = false,
                    (false, _) => {}
                }
                continue;
            }
            match c {
                '"' => in_string = true,
                '(' | '[' | '{' | '<' => depth += 1,
                // `->` is not a closing bracket.
                '>' if i > 0 && self.rest()[..i].ends_with('-') => {}
                ')' | ']' | '}' | '>' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        self.pos += i + 1;
                        return Ok(&self.text[start..self.pos]);
                    }
                }
                _ => {}
            }
            if depth == 0 {
                break;
            }
        }
        Err(self.err("unbalanced brackets"))
    }
}

/// An integer literal's value: decimal (with sign) or `0x` hexadecimal.
pub(super) fn parse_int(text: &str) -> Option<i128> {
    let (neg, body) = match text.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let v = match body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        Some(hex) => i128::from_str_radix(hex, 16).ok()?,
        None => body.parse::<i128>().ok()?,
    };
    Some(if neg { -v } else { v })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_and_tokens() {
        let mut c = Cursor::new("// c\n  %x#1 = 0x7F -1.5e+3\n\"a\\\"b\"");
        assert_eq!(c.sigil_name('%').as_deref(), Some("%x"));
        assert!(c.eat("#"));
        assert_eq!(c.integer().unwrap(), Some(1));
        assert_eq!(c.here(), Pos { line: 2, col: 8 });
        assert!(c.eat("="));
        assert_eq!(c.number(), Some("0x7F"));
        assert_eq!(c.number(), Some("-1.5e+3"));
        assert_eq!(c.string().unwrap(), "a\"b");
        assert!(c.at_end());
    }

    #[test]
    fn balanced_groups_skip_arrows() {
        let mut c = Cursor::new("<a -> <b>> rest");
        assert_eq!(c.skip_balanced().unwrap(), "<a -> <b>>");
        assert_eq!(c.ident(), Some("rest"));
        assert!(Cursor::new("(a [").skip_balanced().is_err());
    }
}
