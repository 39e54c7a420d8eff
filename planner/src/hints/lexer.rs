//! Tokens of a hint block's text, with their positions in the SQL text.
//!
//! The lexer is pulled one token at a time by the parser, so that the first
//! problem in reading order is the one reported.

use std::iter::Peekable;
use std::str::Chars;

use super::error::HintError;
use super::syntax::Position;

/// A token of hint text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum TokenKind {
    /// An identifier; `text` is as written (not folded yet).
    Ident {
        text: String,
        quoted: bool,
    },
    /// A string literal, unescaped.
    Str(String),
    /// A numeric literal, as written.
    Number(String),
    LParen,
    RParen,
    Comma,
    Eq,
    /// The end of the hint text.
    End,
}

impl TokenKind {
    /// How the token reads in an error message.
    pub(crate) fn describe(&self) -> String {
        match self {
            TokenKind::Ident {
                text,
                quoted: false,
            } => format!("identifier `{text}`"),
            TokenKind::Ident { text, quoted: true } => format!("quoted identifier `\"{text}\"`"),
            TokenKind::Str(s) => format!("string '{s}'"),
            TokenKind::Number(n) => format!("number {n}"),
            TokenKind::LParen => "`(`".into(),
            TokenKind::RParen => "`)`".into(),
            TokenKind::Comma => "`,`".into(),
            TokenKind::Eq => "`=`".into(),
            TokenKind::End => "the end of the hint block".into(),
        }
    }
}

/// A token and where it starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Token {
    pub kind: TokenKind,
    pub position: Position,
}

/// Reads tokens from hint text that starts at a known position.
pub(crate) struct Lexer<'a> {
    chars: Peekable<Chars<'a>>,
    line: u64,
    column: u64,
}

impl<'a> Lexer<'a> {
    /// A lexer over `text`, whose first character is at `start`.
    pub(crate) fn new(text: &'a str, start: Position) -> Self {
        Lexer {
            chars: text.chars().peekable(),
            line: start.line,
            column: start.column,
        }
    }

    fn position(&self) -> Position {
        Position::new(self.line, self.column)
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.chars.next()?;
        if c == '\n' {
            self.line = self.line.saturating_add(1);
            self.column = 1;
        } else {
            self.column = self.column.saturating_add(1);
        }
        Some(c)
    }

    /// The next token, or an error for a character that starts no token or
    /// an unclosed quote.
    pub(crate) fn next_token(&mut self) -> Result<Token, HintError> {
        while self.chars.peek().is_some_and(|c| c.is_whitespace()) {
            self.bump();
        }
        let position = self.position();
        let Some(&c) = self.chars.peek() else {
            return Ok(Token {
                kind: TokenKind::End,
                position,
            });
        };
        let kind = match c {
            '(' | ')' | ',' | '=' => {
                self.bump();
                match c {
                    '(' => TokenKind::LParen,
                    ')' => TokenKind::RParen,
                    ',' => TokenKind::Comma,
                    _ => TokenKind::Eq,
                }
            }
            '\'' => TokenKind::Str(self.quoted('\'', position, "string literal")?),
            '"' => TokenKind::Ident {
                text: self.quoted('"', position, "quoted identifier")?,
                quoted: true,
            },
            '`' => TokenKind::Ident {
                text: self.quoted('`', position, "quoted identifier")?,
                quoted: true,
            },
            c if c.is_ascii_digit() || c == '.' => self.number(position)?,
            c if c.is_alphabetic() || c == '_' => {
                let mut text = String::new();
                while let Some(&c) = self.chars.peek() {
                    if c.is_alphanumeric() || c == '_' || c == '$' {
                        text.push(c);
                        self.bump();
                    } else {
                        break;
                    }
                }
                if self.chars.peek() == Some(&'.') {
                    let at = self.position();
                    return Err(syntax(
                        at,
                        format!(
                            "unexpected `.` after `{text}`: hint options are simple names; \
                             name the table by its alias or by its name without a schema"
                        ),
                    ));
                }
                TokenKind::Ident {
                    text,
                    quoted: false,
                }
            }
            '/' | '-' => {
                return Err(syntax(
                    position,
                    format!(
                        "unexpected `{c}`: comments and operators are not allowed inside a \
                         hint block; expected a hint name, an option, `(`, `)`, `,` or `=`"
                    ),
                ));
            }
            other => {
                return Err(syntax(
                    position,
                    format!(
                        "unexpected character `{}`: expected a hint name, an identifier, a \
                         number, a 'string', `(`, `)`, `,` or `=`",
                        other.escape_debug()
                    ),
                ));
            }
        };
        Ok(Token { kind, position })
    }

    /// A quoted token; doubling the quote inside escapes it.
    fn quoted(&mut self, quote: char, start: Position, what: &str) -> Result<String, HintError> {
        self.bump();
        let mut s = String::new();
        loop {
            match self.bump() {
                Some(c) if c == quote => {
                    if self.chars.peek() == Some(&quote) {
                        self.bump();
                        s.push(quote);
                    } else {
                        return Ok(s);
                    }
                }
                Some(c) => s.push(c),
                None => {
                    return Err(syntax(
                        start,
                        format!(
                            "unclosed {what}: expected a closing {quote} before the end of the hint block"
                        ),
                    ));
                }
            }
        }
    }

    /// `digits [. digits] [e [+-] digits]` or `. digits ...`.
    fn number(&mut self, start: Position) -> Result<TokenKind, HintError> {
        let mut s = String::new();
        let mut digits = 0usize;
        while let Some(&c) = self.chars.peek() {
            if c.is_ascii_digit() {
                digits += 1;
            } else if c != '.' || s.contains('.') {
                break;
            }
            s.push(c);
            self.bump();
        }
        if digits == 0 {
            return Err(syntax(
                start,
                "unexpected `.`: expected a hint name, an option, `(`, `)`, `,` or `=`".into(),
            ));
        }
        if matches!(self.chars.peek(), Some('e' | 'E')) {
            s.push('e');
            self.bump();
            if let Some(&c @ ('+' | '-')) = self.chars.peek() {
                s.push(c);
                self.bump();
            }
            let mut exp = 0usize;
            while let Some(&c) = self.chars.peek() {
                if !c.is_ascii_digit() {
                    break;
                }
                s.push(c);
                self.bump();
                exp += 1;
            }
            if exp == 0 {
                return Err(syntax(
                    self.position(),
                    format!("malformed number `{s}`: expected digits after the exponent"),
                ));
            }
        }
        if self
            .chars
            .peek()
            .is_some_and(|c| c.is_alphanumeric() || *c == '_')
        {
            return Err(syntax(
                self.position(),
                format!(
                    "malformed number `{s}`: a name cannot start with a digit; quote it \
                     (\"{s}...\") if it is a name"
                ),
            ));
        }
        Ok(TokenKind::Number(s))
    }
}

pub(crate) fn syntax(position: Position, message: String) -> HintError {
    HintError::Syntax { position, message }
}
