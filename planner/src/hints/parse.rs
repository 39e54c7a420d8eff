//! The hint grammar (docs/hints.md H01–H05): text of one `/*+ ... */` block to
//! [`Hint`]s.
//!
//! ```text
//! block := hint ( [','] hint )*
//! hint  := NAME [ '(' kv (',' kv)* ')' | '(' opt (',' opt)* ')' ]
//! kv    := (identifier | 'string') '=' 'string'
//! opt   := identifier | number | 'string'
//! ```
//!
//! The first option of a hint decides its form: followed by `=` it is a
//! key-value hint and every option must be `key = 'val'`; otherwise it is a
//! list hint and no option may have `=`.

use super::error::HintError;
use super::lexer::{Lexer, Token, TokenKind, syntax};
use super::name::HintName;
use super::syntax::{Hint, HintArgs, HintOption, KeyValue, OptionValue, Position};

/// Parses the text of one hint block: what is between `/*+` and `*/`.
///
/// `start` is the position of the first character of `text` in the SQL
/// text (for a comment at line `l`, column `c`, that is `c + 3`: see
/// [`HintComment::text_position`](super::HintComment::text_position)), so
/// that errors point into the original SQL.
///
/// # Errors
///
/// [`HintError::Syntax`] for text that does not follow the grammar (an
/// empty block, a bad character, a missing `)`, an empty option, an
/// unclosed string, key-value and list forms mixed), and
/// [`HintError::UnknownHint`] for a name tenon does not know. Both carry
/// the position of the problem.
///
/// # Examples
///
/// ```
/// use tenon_planner::hints::{parse_hints, HintArgs, HintName, Position};
///
/// // `SELECT /*+ broadcast(T1) SHUFFLE_HASH("T2") */ ...`: the text
/// // starts at column 11.
/// let hints = parse_hints(" broadcast(T1) SHUFFLE_HASH(\"T2\") ", Position::new(1, 11)).unwrap();
/// assert_eq!(hints.len(), 2);
/// assert_eq!(hints[0].name, HintName::Broadcast);
/// assert_eq!(hints[0].names(), ["t1"]); // unquoted: folded to lower case
/// assert_eq!(hints[1].names(), ["T2"]); // quoted: case kept
/// assert_eq!(hints[0].to_string(), "BROADCAST(t1)");
///
/// let err = parse_hints(" BROADCAST(t1 ", Position::new(1, 11)).unwrap_err();
/// assert_eq!(err.to_string(),
///     "malformed hint at line 1, column 25: missing `)`: expected `,` or `)` to close the \
///      `(` of BROADCAST at line 1, column 21, found the end of the hint block");
/// ```
pub fn parse_hints(text: &str, start: Position) -> Result<Vec<Hint>, HintError> {
    let mut p = Parser::new(text, start)?;
    let mut hints = Vec::new();
    if p.peek.kind == TokenKind::End {
        return Err(syntax(
            p.peek.position,
            "empty hint block: expected a hint name, e.g. `/*+ BROADCAST(t1) */`; write a plain \
             comment `/* ... */` (without `+`) for a comment"
                .into(),
        ));
    }
    loop {
        hints.push(p.hint()?);
        match &p.peek.kind {
            TokenKind::End => return Ok(hints),
            TokenKind::Comma => {
                p.advance()?;
                if p.peek.kind == TokenKind::End {
                    return Err(syntax(
                        p.peek.position,
                        "expected a hint name after `,`, found the end of the hint block; \
                         remove the trailing `,`"
                            .into(),
                    ));
                }
            }
            TokenKind::Ident { .. } => {}
            other => {
                return Err(syntax(
                    p.peek.position,
                    format!(
                        "unexpected {} after hint {}: expected `,`, another hint or the end of \
                         the hint block",
                        other.describe(),
                        hints.last().map(|h| h.name.name()).unwrap_or_default()
                    ),
                ));
            }
        }
    }
}

struct Parser<'a> {
    lexer: Lexer<'a>,
    peek: Token,
}

impl<'a> Parser<'a> {
    fn new(text: &'a str, start: Position) -> Result<Self, HintError> {
        let mut lexer = Lexer::new(text, start);
        let peek = lexer.next_token()?;
        Ok(Parser { lexer, peek })
    }

    /// Consumes the peeked token and returns it.
    fn advance(&mut self) -> Result<Token, HintError> {
        let next = self.lexer.next_token()?;
        Ok(std::mem::replace(&mut self.peek, next))
    }

    fn hint(&mut self) -> Result<Hint, HintError> {
        let tok = self.advance()?;
        let (text, position) = match tok.kind {
            TokenKind::Ident {
                text,
                quoted: false,
            } => (text, tok.position),
            other => {
                return Err(syntax(
                    tok.position,
                    format!(
                        "expected a hint name (such as BROADCAST or SHUFFLE_HASH), found {}",
                        other.describe()
                    ),
                ));
            }
        };
        let name = HintName::from_name(&text).ok_or_else(|| HintError::UnknownHint {
            name: text.clone(),
            position,
        })?;
        if self.peek.kind != TokenKind::LParen {
            return Ok(Hint {
                name,
                args: HintArgs::None,
                position,
            });
        }
        let open = self.advance()?.position;
        let args = self.args(name, open)?;
        Ok(Hint {
            name,
            args,
            position,
        })
    }

    /// After `(`: the options and the closing `)`.
    fn args(&mut self, name: HintName, open: Position) -> Result<HintArgs, HintError> {
        if self.peek.kind == TokenKind::RParen {
            return Err(syntax(
                self.peek.position,
                format!(
                    "empty option list `{name}()`: expected at least one option, e.g. \
                     `{name}(t1)`, or no parentheses"
                ),
            ));
        }
        let first_pos = self.peek.position;
        let first = self.item(name)?;
        if self.peek.kind == TokenKind::Eq {
            self.key_values(name, open, first, first_pos)
        } else {
            self.list(name, open, first, first_pos)
        }
    }

    /// One option: identifier, number or string; errors on anything else.
    fn item(&mut self, name: HintName) -> Result<OptionValue, HintError> {
        let tok = self.advance()?;
        let value = match tok.kind {
            TokenKind::Ident { text, quoted } => OptionValue::Identifier {
                name: if quoted { text } else { text.to_lowercase() },
                quoted,
            },
            TokenKind::Number(n) => OptionValue::Number(n),
            TokenKind::Str(s) => OptionValue::String(s),
            TokenKind::Comma | TokenKind::RParen => {
                return Err(syntax(
                    tok.position,
                    format!(
                        "empty option in {name}(...): expected an identifier, a number or a \
                         'string' before {}",
                        tok.kind.describe()
                    ),
                ));
            }
            other => {
                return Err(syntax(
                    tok.position,
                    format!(
                        "expected an option of {name} (an identifier, a number or a 'string'), \
                         found {}",
                        other.describe()
                    ),
                ));
            }
        };
        Ok(value)
    }

    /// After an option: `,` (more follow) or `)` (done); `Ok(true)` when
    /// more follow.
    fn separator(&mut self, name: HintName, open: Position, list: bool) -> Result<bool, HintError> {
        match self.peek.kind {
            TokenKind::Comma => {
                self.advance()?;
                Ok(true)
            }
            TokenKind::RParen => {
                self.advance()?;
                Ok(false)
            }
            TokenKind::End => Err(syntax(
                self.peek.position,
                format!(
                    "missing `)`: expected `,` or `)` to close the `(` of {name} at {open}, found \
                     the end of the hint block"
                ),
            )),
            TokenKind::Eq if list => Err(syntax(
                self.peek.position,
                format!(
                    "unexpected `=` in {name}(...): its first option has no value, so its \
                     options are a list like `{name}(a, b)`; list and key = 'value' forms \
                     cannot be mixed"
                ),
            )),
            ref other => Err(syntax(
                self.peek.position,
                format!(
                    "expected `,` or `)` after an option of {name}, found {}",
                    other.describe()
                ),
            )),
        }
    }

    fn list(
        &mut self,
        name: HintName,
        open: Position,
        first: OptionValue,
        first_pos: Position,
    ) -> Result<HintArgs, HintError> {
        let mut opts = vec![HintOption {
            value: first,
            position: first_pos,
        }];
        while self.separator(name, open, true)? {
            let position = self.peek.position;
            let value = self.item(name)?;
            opts.push(HintOption { value, position });
        }
        Ok(HintArgs::List(opts))
    }

    fn key_values(
        &mut self,
        name: HintName,
        open: Position,
        first: OptionValue,
        first_pos: Position,
    ) -> Result<HintArgs, HintError> {
        let mut kvs = Vec::new();
        let mut key = (first, first_pos);
        loop {
            let (k, position) = key;
            let k = match k {
                OptionValue::Identifier { name, .. } | OptionValue::String(name) => name,
                OptionValue::Number(n) => {
                    return Err(syntax(
                        position,
                        format!(
                            "a key of {name}(...) must be an identifier or a 'string', found \
                             number {n}"
                        ),
                    ));
                }
            };
            if self.peek.kind != TokenKind::Eq {
                return Err(syntax(
                    self.peek.position,
                    format!(
                        "expected `=` after key `{k}`, found {}: the first option of {name} is \
                         key = 'value', so every option must be; list and key = 'value' forms \
                         cannot be mixed",
                        self.peek.kind.describe()
                    ),
                ));
            }
            self.advance()?;
            let tok = self.advance()?;
            let value = match tok.kind {
                TokenKind::Str(s) => s,
                other => {
                    return Err(syntax(
                        tok.position,
                        format!(
                            "expected a 'string' value for key `{k}` of {name}, found {}; \
                             values are quoted, e.g. '{}'",
                            other.describe(),
                            match &other {
                                TokenKind::Number(n) => n.clone(),
                                TokenKind::Ident { text, .. } => text.clone(),
                                _ => "value".into(),
                            }
                        ),
                    ));
                }
            };
            kvs.push(KeyValue {
                key: k,
                value,
                position,
            });
            if !self.separator(name, open, false)? {
                return Ok(HintArgs::KeyValues(kvs));
            }
            let position = self.peek.position;
            let next = self.item(name)?;
            key = (next, position);
        }
    }
}
