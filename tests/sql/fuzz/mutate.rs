//! The fuzzer's statement generator: a small deterministic RNG, a SQL
//! tokenizer that keeps hint blocks, comments, strings and quoted names
//! whole, and the mutations (see the parent module's docs for the list).

/// A SplitMix64 generator: deterministic from its seed, good enough to
/// pick mutations, and no dependency.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator for `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x9E37_79B9_7F4A_7C15)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// A number in `lo..=hi`.
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }

    /// True with probability `num / den`.
    pub fn chance(&mut self, num: usize, den: usize) -> bool {
        self.below(den) < num
    }

    /// One of `items` (not empty).
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// What a token is, as far as the mutations care.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tok {
    /// A keyword or an unquoted name.
    Word,
    /// A `"quoted"` name.
    Quoted,
    /// A numeric literal.
    Number,
    /// A `'string'` literal.
    Str,
    /// A `/*+ ... */` hint block.
    Hint,
    /// A `/* ... */` or `-- ...` comment.
    Comment,
    /// An operator or punctuation.
    Punct,
}

/// A token: its kind and text.
pub type Token = (Tok, String);

/// `sql` split into tokens (whitespace dropped). Unterminated strings,
/// names and comments run to the end of the text.
pub fn tokenize(sql: &str) -> Vec<Token> {
    let chars: Vec<char> = sql.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let text = |a: usize, b: usize| chars[a..b.min(chars.len())].iter().collect::<String>();
    while i < chars.len() {
        let c = chars[i];
        let start = i;
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        let kind = if c == '-' && chars.get(i + 1) == Some(&'-') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
            Tok::Comment
        } else if c == '/' && chars.get(i + 1) == Some(&'*') {
            let hint = chars.get(i + 2) == Some(&'+');
            i += 2;
            while i < chars.len() && !(chars[i] == '*' && chars.get(i + 1) == Some(&'/')) {
                i += 1;
            }
            i = (i + 2).min(chars.len());
            if hint { Tok::Hint } else { Tok::Comment }
        } else if c == '\'' || c == '"' {
            i += 1;
            loop {
                match chars.get(i) {
                    None => break,
                    Some(&q) if q == c && chars.get(i + 1) == Some(&c) => i += 2,
                    Some(&q) if q == c => {
                        i += 1;
                        break;
                    }
                    Some(_) => i += 1,
                }
            }
            if c == '\'' { Tok::Str } else { Tok::Quoted }
        } else if c.is_ascii_digit()
            || (c == '.' && chars.get(i + 1).is_some_and(char::is_ascii_digit))
        {
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '.') {
                i += 1;
            }
            Tok::Number
        } else if c.is_alphabetic() || c == '_' {
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            Tok::Word
        } else {
            let two = text(i, i + 2);
            i += if ["<=", ">=", "<>", "!=", "||", "::"].contains(&two.as_str()) {
                2
            } else {
                1
            };
            Tok::Punct
        };
        out.push((kind, text(start, i)));
    }
    out
}

/// The tokens as SQL text: one space between tokens, a line break after a
/// `--` comment.
pub fn render(tokens: &[Token]) -> String {
    let mut s = String::new();
    for (kind, t) in tokens {
        if !s.is_empty() && !s.ends_with('\n') {
            s.push(' ');
        }
        s.push_str(t);
        if *kind == Tok::Comment && t.starts_with("--") {
            s.push('\n');
        }
    }
    s
}

/// Literals at the edges: huge and tiny numbers, NaN and infinities,
/// empty and long strings, extreme dates, NULL.
fn extreme_literal(rng: &mut Rng) -> Vec<Token> {
    const EXTREMES: [&str; 24] = [
        "9223372036854775807",
        "-9223372036854775808",
        "9223372036854775808",
        "-9223372036854775809",
        "340282366920938463463374607431768211456",
        "99999999999999999999999999999999999999.99",
        "0.000000000000000000000000000000000000001",
        "0",
        "-0.0",
        "1e308",
        "-1e308",
        "1e309",
        "4.9e-324",
        "CAST('NaN' AS DOUBLE)",
        "CAST('-NaN' AS DOUBLE)",
        "CAST('-inf' AS DOUBLE)",
        "''",
        "'%'",
        "'\u{e9}\u{1F600}\u{0}x'",
        "NULL",
        "DATE '9999-12-31'",
        "DATE '0001-01-01'",
        "INTERVAL '2147483647' DAY",
        "2147483648",
    ];
    if rng.chance(1, 12) {
        let n = *rng.pick(&[0usize, 1, 255, 4096, 70_000]);
        return vec![(Tok::Str, format!("'{}'", "x".repeat(n)))];
    }
    let text: &&str = rng.pick(&EXTREMES);
    tokenize(text)
}

/// Table names of the query (words after FROM / JOIN, or any word).
fn names(tokens: &[Token]) -> Vec<String> {
    let mut out: Vec<String> = (tokens.windows(2))
        .filter(|w| {
            w[0].0 == Tok::Word
                && matches!(w[0].1.to_ascii_lowercase().as_str(), "from" | "join")
                && w[1].0 == Tok::Word
        })
        .map(|w| w[1].1.clone())
        .collect();
    if out.is_empty() {
        out.push("t".to_string());
    }
    out
}

/// A hint block, valid or mangled, naming tables of the query.
fn hint_block(rng: &mut Rng, tokens: &[Token]) -> String {
    const NAMES: [&str; 12] = [
        "BROADCAST",
        "SHUFFLE_HASH",
        "SHUFFLE_MERGE",
        "NEST_LOOP",
        "broadcast",
        "MULTI_JOIN",
        "LOOKUP",
        "STATE_TTL",
        "OPTIONS",
        "NO_SUCH_HINT",
        "BROADCAST_",
        "",
    ];
    let tables = names(tokens);
    let mut hints = Vec::new();
    for _ in 0..rng.range(1, 3) {
        let name = rng.pick(&NAMES);
        let args: Vec<String> = (0..rng.range(0, 3))
            .map(|_| match rng.below(6) {
                0 => "nosuch".to_string(),
                1 => "'k' = 'v'".to_string(),
                2 => "'scan.batch-size' = '0'".to_string(),
                _ => rng.pick(&tables).clone(),
            })
            .collect();
        hints.push(match rng.below(8) {
            0 => format!("{name}({}", args.join(", ")),
            1 => format!("{name}{}", args.join(" ")),
            2 => format!("{name}(({}))", args.join(", ")),
            _ => format!("{name}({})", args.join(", ")),
        });
    }
    let body = hints.join(if rng.chance(1, 4) { " " } else { ", " });
    match rng.below(10) {
        0 => format!("/*+ {body}"),
        1 => format!("/*+ {body} /*+ {body} */ */"),
        2 => format!("/*+{body}*/"),
        _ => format!("/*+ {body} */"),
    }
}

/// Tokens any position may receive.
const VOCABULARY: [&str; 40] = [
    "(",
    ")",
    ",",
    "NULL",
    "NOT",
    "AND",
    "OR",
    "=",
    "<",
    "+",
    "-",
    "*",
    "/",
    "%",
    "||",
    "SELECT",
    "FROM",
    "WHERE",
    "JOIN",
    "ON",
    "LEFT",
    "FULL",
    "CROSS",
    "GROUP BY",
    "HAVING",
    "ORDER BY",
    "LIMIT",
    "OFFSET",
    "UNION ALL",
    "EXCEPT",
    "INTERSECT",
    "DISTINCT",
    "IN",
    "EXISTS",
    "CASE",
    "END",
    "AS",
    "::",
    "1",
    "true",
];

/// Words that are not values (a value is nested, a keyword is not).
const KEYWORDS: [&str; 48] = [
    "select",
    "from",
    "where",
    "group",
    "by",
    "having",
    "order",
    "limit",
    "offset",
    "join",
    "on",
    "left",
    "right",
    "full",
    "outer",
    "inner",
    "cross",
    "semi",
    "anti",
    "union",
    "all",
    "except",
    "intersect",
    "distinct",
    "as",
    "and",
    "or",
    "not",
    "in",
    "exists",
    "is",
    "null",
    "case",
    "when",
    "then",
    "else",
    "end",
    "between",
    "like",
    "asc",
    "desc",
    "with",
    "interval",
    "date",
    "day",
    "month",
    "year",
    "for",
];

/// Whether token `i` is a value: a literal, or a name that is not a
/// keyword, a function name or a qualifier.
fn is_value(tokens: &[Token], i: usize) -> bool {
    let (kind, text) = &tokens[i];
    let next = tokens.get(i + 1).map(|t| t.1.as_str());
    let prev = i.checked_sub(1).map(|p| tokens[p].1.as_str());
    match kind {
        Tok::Number => prev != Some("interval"),
        Tok::Str => !matches!(
            prev.map(str::to_ascii_lowercase).as_deref(),
            Some("date" | "interval")
        ),
        Tok::Word => {
            !KEYWORDS.contains(&text.to_ascii_lowercase().as_str())
                && !matches!(next, Some("." | "("))
                && prev != Some(".")
                && !matches!(
                    prev.map(str::to_ascii_lowercase).as_deref(),
                    Some("from" | "join" | "as")
                )
        }
        _ => false,
    }
}

/// An expression wrapper nested `depth` times around `inner`.
fn nest(rng: &mut Rng, inner: Vec<Token>, depth: usize) -> Vec<Token> {
    let mut text = render(&inner);
    let shape = rng.below(6);
    for _ in 0..depth {
        text = match shape {
            0 => format!("({text})"),
            1 => format!("CASE WHEN true THEN {text} END"),
            2 => format!("coalesce({text}, NULL)"),
            3 => format!("-({text})"),
            4 => format!("NOT ({text})"),
            _ => format!("({text} + 0)"),
        };
    }
    tokenize(&text)
}

/// `tokens` with a long chain: a value as `v + 0 + 0 ...`, `OR` terms
/// after a WHERE, or the statement as `UNION ALL` branches; at most
/// `max_chain` terms.
fn chain(rng: &mut Rng, tokens: &[Token], max_chain: usize) -> Vec<Token> {
    let n = rng.range(2, max_chain.max(2));
    let wheres: Vec<usize> = (0..tokens.len())
        .filter(|&i| tokens[i].1.eq_ignore_ascii_case("where"))
        .collect();
    let vals: Vec<usize> = (0..tokens.len()).filter(|&i| is_value(tokens, i)).collect();
    let mut out = tokens.to_vec();
    match rng.below(3) {
        0 if !wheres.is_empty() => {
            let terms: Vec<String> = (0..n).map(|i| format!("{i} = {}", i + 1)).collect();
            let text = format!("({}) OR", terms.join(" OR "));
            let at = *rng.pick(&wheres) + 1;
            out.splice(at..at, tokenize(&text));
        }
        1 if !vals.is_empty() => {
            let i = *rng.pick(&vals);
            let text = format!("({}{})", tokens[i].1, " + 0".repeat(n));
            out.splice(i..=i, tokenize(&text));
        }
        _ => {
            let q = render(tokens);
            out = tokenize(&vec![format!("({q})"); n].join(" UNION ALL "));
        }
    }
    out
}

/// One random mutation of `tokens`; `other` is another seed (for
/// crossover), `max_depth` bounds nesting and `max_chain` chains.
fn mutate_once(
    rng: &mut Rng,
    tokens: &mut Vec<Token>,
    other: &[Token],
    max_depth: usize,
    max_chain: usize,
) {
    let n = tokens.len();
    if n == 0 {
        tokens.extend(other.iter().cloned());
        return;
    }
    let at = rng.below(n);
    // Weights: the syntax-breaking mutations (0-2, 13-15) are rarer than
    // those that keep a statement mostly valid.
    match rng.below(19) {
        0 => {
            tokens.remove(at);
        }
        1 => {
            let t = tokens[at].clone();
            tokens.insert(at, t);
        }
        2 => tokens.swap(at, rng.below(n)),
        3..=6 => {
            // A literal (or, failing that, any token) to an extreme.
            let lits: Vec<usize> = (0..n)
                .filter(|&i| matches!(tokens[i].0, Tok::Number | Tok::Str))
                .collect();
            let i = if lits.is_empty() {
                at
            } else {
                *rng.pick(&lits)
            };
            tokens.splice(i..=i, extreme_literal(rng));
        }
        7..=9 => {
            // A hint block: replace one, or add one after a SELECT (or
            // after a table name, as OPTIONS).
            let hint = (Tok::Hint, hint_block(rng, tokens));
            let hints: Vec<usize> = (0..n).filter(|&i| tokens[i].0 == Tok::Hint).collect();
            let selects: Vec<usize> = (0..n)
                .filter(|&i| tokens[i].1.eq_ignore_ascii_case("select"))
                .collect();
            if !hints.is_empty() && rng.chance(1, 2) {
                let i = *rng.pick(&hints);
                tokens[i] = hint;
            } else if !selects.is_empty() && rng.chance(3, 4) {
                tokens.insert(*rng.pick(&selects) + 1, hint);
            } else {
                tokens.insert(at + 1, hint);
            }
        }
        10 | 11 => {
            // The whole statement wrapped.
            let q = render(tokens);
            let wrapped = match rng.below(5) {
                0 => format!("SELECT * FROM ({q}) AS fz"),
                1 => format!("SELECT count(*) FROM ({q}) fz"),
                2 => format!("WITH fz AS ({q}) SELECT * FROM fz"),
                3 => format!("SELECT * FROM ({q}) fz ORDER BY 1 LIMIT 3"),
                _ => format!("({q}) UNION ALL ({q})"),
            };
            *tokens = tokenize(&wrapped);
        }
        12 | 16 | 17 => {
            // A value nested.
            let vals: Vec<usize> = (0..n).filter(|&i| is_value(tokens, i)).collect();
            let i = if vals.is_empty() {
                at
            } else {
                *rng.pick(&vals)
            };
            let depth = rng.range(1, max_depth.max(1));
            let nested = nest(rng, vec![tokens[i].clone()], depth);
            tokens.splice(i..=i, nested);
        }
        13 => {
            let word = rng.pick(&VOCABULARY);
            tokens.splice(at..at, tokenize(word));
        }
        14 => {
            // Crossover: a piece of another seed in place of a piece of
            // this one.
            if !other.is_empty() {
                let a = rng.below(other.len());
                let b = (a + rng.range(1, 8)).min(other.len());
                let end = (at + rng.range(0, 8)).min(n);
                tokens.splice(at..end, other[a..b].iter().cloned());
            }
        }
        18 => *tokens = chain(rng, tokens, max_chain),
        _ => {
            // A name replaced by another name of the statement.
            let words: Vec<usize> = (0..n).filter(|&i| tokens[i].0 == Tok::Word).collect();
            if words.len() >= 2 {
                let (i, j) = (*rng.pick(&words), *rng.pick(&words));
                tokens[i] = tokens[j].clone();
            }
        }
    }
}

/// Case `case` of the run seeded by `seed`: a seed statement with 1 to 4
/// mutations, nested at most `max_depth` deep, chains of at most
/// `max_chain` terms (the same arguments give the same statement).
pub fn statement(
    seeds: &[String],
    seed: u64,
    case: u64,
    max_depth: usize,
    max_chain: usize,
) -> String {
    let mut rng = Rng::new(seed.wrapping_mul(0x100_0000_01B3) ^ case);
    let mut tokens = tokenize(&seeds[rng.below(seeds.len())]);
    let other = tokenize(&seeds[rng.below(seeds.len())]);
    let mutations = match rng.below(8) {
        0..=3 => 1,
        4 | 5 => 2,
        _ => rng.range(3, 4),
    };
    for _ in 0..mutations {
        mutate_once(&mut rng, &mut tokens, &other, max_depth, max_chain);
        if tokens.len() > 20_000 {
            tokens.truncate(20_000);
        }
    }
    render(&tokens)
}

#[test]
fn tokenizer_keeps_hints_strings_and_comments_whole() {
    let t = tokenize("SELECT /*+ BROADCAST(a) */ 'it''s' AS \"x y\", 1.5e3 -- c\nFROM a<=b");
    let kinds: Vec<Tok> = t.iter().map(|t| t.0).collect();
    assert_eq!(
        kinds,
        [
            Tok::Word,
            Tok::Hint,
            Tok::Str,
            Tok::Word,
            Tok::Quoted,
            Tok::Punct,
            Tok::Number,
            Tok::Comment,
            Tok::Word,
            Tok::Word,
            Tok::Punct,
            Tok::Word
        ]
    );
    assert_eq!(t[2].1, "'it''s'");
    assert_eq!(t[10].1, "<=");
    assert_eq!(tokenize(&render(&t)), t);
}

#[test]
fn generator_is_deterministic() {
    let seeds = vec!["SELECT a.k FROM a JOIN b ON a.k = b.k WHERE a.v > 3".to_string()];
    let one: Vec<String> = (0..50).map(|c| statement(&seeds, 7, c, 6, 8)).collect();
    let two: Vec<String> = (0..50).map(|c| statement(&seeds, 7, c, 6, 8)).collect();
    assert_eq!(one, two);
    assert!(one.iter().any(|s| s != &seeds[0]));
}
