//! PostgreSQL's connection URL, `jdbc:postgresql://[user[:password]@]host
//! [:port]/database[?param=value&...]`, read as PostgreSQL's connection URI
//! format defines it (libpq's "Connection URIs"): the user info before `@`,
//! a host name, an IPv4 address or an IPv6 literal in brackets (`[::1]`),
//! percent-encoded parts, and parameters (`user`, `password`,
//! `connect_timeout`, `application_name`, `options`, `sslmode`; JDBC's
//! `connectTimeout` and `ApplicationName` too).
//!
//! A URL is never shown as written: [`masked`] replaces its password (in
//! the user info and in a `password` parameter) with `***`, and every
//! message and EXPLAIN shows that form. An error about a URL never quotes
//! its parts beyond the masked URL, so a password that the URL's syntax
//! split in the wrong place does not leak either.

use std::time::Duration;

/// The mark a password is replaced with.
const MASK: &str = "***";

/// A PostgreSQL connection URL, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PgUrl {
    /// The host: a name or an IP address (an IPv6 literal without its
    /// brackets).
    pub(crate) host: String,
    /// The port (5432 when the URL names none).
    pub(crate) port: u16,
    /// The database.
    pub(crate) dbname: String,
    /// The user name (the user info's, or the `user` parameter's).
    pub(crate) user: Option<String>,
    /// The password (the user info's, or the `password` parameter's).
    pub(crate) password: Option<String>,
    /// `connect_timeout` (`connectTimeout`), in seconds as PostgreSQL
    /// reads it.
    pub(crate) connect_timeout: Option<Duration>,
    /// `application_name` (`ApplicationName`).
    pub(crate) application_name: Option<String>,
    /// `options`: command-line options sent to the server.
    pub(crate) options: Option<String>,
}

/// The parameters [`parse`] reads, for a message.
const PARAMETERS: &str = "user, password, connect_timeout (connectTimeout), application_name \
                          (ApplicationName), options, sslmode";

/// `url` with its passwords replaced by `***`: the user info's (everything
/// between the first `:` after `//` and the last `@`) and every `password`
/// parameter's value. Conservative: a URL too malformed to read is masked
/// as much as it could hold a password.
pub(crate) fn masked(url: &str) -> String {
    let Some(start) = url.find("//").map(|i| i + 2) else {
        return mask_parameters(url);
    };
    let (head, rest) = url.split_at(start);
    let rest = match rest.rfind('@') {
        Some(at) => {
            let (info, after) = rest.split_at(at);
            match info.find(':') {
                Some(colon) => format!("{}:{MASK}{}", &info[..colon], mask_parameters(after)),
                None => format!("{info}{}", mask_parameters(after)),
            }
        }
        None => mask_parameters(rest),
    };
    format!("{head}{rest}")
}

/// `text` with the value of every `password=` parameter (after `?` or `&`,
/// in any case) replaced by `***`.
fn mask_parameters(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(['?', '&']) {
        out.push_str(&rest[..=i]);
        rest = &rest[i + 1..];
        let end = rest.find('&').unwrap_or(rest.len());
        let pair = &rest[..end];
        match pair.split_once('=') {
            Some((k, _)) if decode(k).is_ok_and(|k| k.eq_ignore_ascii_case("password")) => {
                out.push_str(k);
                out.push('=');
                out.push_str(MASK);
                rest = &rest[end..];
            }
            _ => {}
        }
    }
    out.push_str(rest);
    out
}

/// Every PostgreSQL URL and every `'password' = '...'` option in `text`
/// (an SQL statement quoted in a message) masked.
pub(crate) fn mask_secrets(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let lower = text.to_ascii_lowercase();
    let mut at = 0;
    // URLs: from `postgresql:` to the next quote or blank
    while let Some(i) = lower[at..].find("postgresql:").map(|i| i + at) {
        let end = text[i..]
            .find(|c: char| c == '\'' || c == '"' || c.is_whitespace())
            .map_or(text.len(), |e| e + i);
        out.push_str(&text[at..i]);
        out.push_str(&masked(&text[i..end]));
        at = end;
    }
    out.push_str(&text[at..]);
    mask_password_options(&out)
}

/// `'password' = '...'` options (any case, any spacing) with `***` for
/// the value.
fn mask_password_options(text: &str) -> String {
    let lower = text.to_ascii_lowercase();
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    while let Some(i) = lower[at..].find("'password'").map(|i| i + at) {
        let after = i + "'password'".len();
        out.push_str(&text[at..after]);
        at = after;
        let rest = &text[after..];
        let spaced = rest.len() - rest.trim_start().len();
        let Some(value) = rest.trim_start().strip_prefix('=') else {
            continue;
        };
        let spaced2 = value.len() - value.trim_start().len();
        let Some(quoted) = value.trim_start().strip_prefix('\'') else {
            continue;
        };
        // the value ends at a quote not doubled ('' is a quote inside)
        let mut end = None;
        let bytes = quoted.as_bytes();
        let mut j = 0;
        while j < bytes.len() {
            if bytes[j] == b'\'' {
                if bytes.get(j + 1) == Some(&b'\'') {
                    j += 2;
                    continue;
                }
                end = Some(j);
                break;
            }
            j += 1;
        }
        out.push_str(&rest[..spaced]);
        out.push('=');
        out.push_str(&value[..spaced2]);
        out.push('\'');
        out.push_str(MASK);
        match end {
            Some(e) => {
                out.push('\'');
                at = after + spaced + 1 + spaced2 + 1 + e + 1;
            }
            // cut off: nothing more of it is shown
            None => at = text.len(),
        }
    }
    out.push_str(&text[at..]);
    out
}

/// `s` percent-decoded (`%2F` is `/`), as UTF-8.
fn decode(s: &str) -> Result<String, ()> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes.get(i + 1..i + 3).ok_or(())?;
            let hex = std::str::from_utf8(hex).map_err(|_| ())?;
            out.push(u8::from_str_radix(hex, 16).map_err(|_| ())?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| ())
}

/// Reads `url` (`jdbc:postgresql://...`).
///
/// # Errors
/// What is wrong with it, naming the URL only in its [`masked`] form.
pub(crate) fn parse(url: &str) -> Result<PgUrl, String> {
    let shown = masked(url);
    let form = "jdbc:postgresql://[user[:password]@]host[:port]/database[?param=value&...]";
    let bad = |what: &str| format!("'url' = '{shown}': {what} (the form is {form})");
    let rest = url
        .strip_prefix("jdbc:postgresql://")
        .ok_or_else(|| bad("not a PostgreSQL URL"))?;
    // the user info ends at the first `@` before the path (libpq's rule)
    let (info, rest) = match rest.find(['@', '/', '?']) {
        Some(i) if rest.as_bytes()[i] == b'@' => (Some(&rest[..i]), &rest[i + 1..]),
        _ => (None, rest),
    };
    let (before_query, query) = match rest.split_once('?') {
        Some((b, q)) => (b, Some(q)),
        None => (rest, None),
    };
    let (address, db) = before_query
        .split_once('/')
        .ok_or_else(|| bad("no database named"))?;
    if db.contains('@') || address.contains('@') {
        return Err(bad(
            "an `@` after the host: percent-encode `@`, `/` and `?` in a user name or \
             password (%40, %2F, %3F)",
        ));
    }
    let (host, port) = if let Some(v6) = address.strip_prefix('[') {
        let (host, after) = v6
            .split_once(']')
            .ok_or_else(|| bad("an IPv6 address without its closing `]`"))?;
        match after {
            "" => (host.to_string(), None),
            p => match p.strip_prefix(':') {
                Some(p) => (host.to_string(), Some(p)),
                None => return Err(bad("text after the IPv6 address's `]`")),
            },
        }
    } else {
        match address.rsplit_once(':') {
            Some((h, p)) => (
                decode(h).map_err(|_| bad("a bad %-escape in the host"))?,
                Some(p),
            ),
            None => (
                decode(address).map_err(|_| bad("a bad %-escape in the host"))?,
                None,
            ),
        }
    };
    if host.contains(',') {
        return Err(bad("several hosts: tenon connects to one"));
    }
    if host.is_empty() {
        return Err(bad("no host named"));
    }
    let port = match port {
        None => 5432,
        Some(p) => p
            .parse::<u16>()
            .ok()
            .filter(|&p| p > 0)
            .ok_or_else(|| bad("the port is not a number from 1 to 65535"))?,
    };
    let dbname = decode(db).map_err(|_| bad("a bad %-escape in the database"))?;
    if dbname.is_empty() {
        return Err(bad("no database named"));
    }
    let mut out = PgUrl {
        host,
        port,
        dbname,
        user: None,
        password: None,
        connect_timeout: None,
        application_name: None,
        options: None,
    };
    if let Some(info) = info {
        let (user, password) = match info.split_once(':') {
            Some((u, p)) => (u, Some(p)),
            None => (info, None),
        };
        let user = decode(user).map_err(|_| bad("a bad %-escape in the user name"))?;
        if !user.is_empty() {
            out.user = Some(user);
        }
        if let Some(p) = password {
            out.password = Some(decode(p).map_err(|_| bad("a bad %-escape in the password"))?);
        }
    }
    for pair in query.unwrap_or("").split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        let key = decode(k).map_err(|_| bad("a bad %-escape in a parameter's name"))?;
        let secret = key.eq_ignore_ascii_case("password");
        let value = decode(v).map_err(|_| {
            if secret {
                bad("a bad %-escape in the password")
            } else {
                bad(&format!("a bad %-escape in parameter `{key}`"))
            }
        })?;
        match key.as_str() {
            "user" => out.user = Some(value),
            "password" => out.password = Some(value),
            "connect_timeout" | "connectTimeout" => {
                let seconds = value.trim().parse::<u64>().map_err(|_| {
                    bad(&format!(
                        "{key}={value}: expected a whole number of seconds"
                    ))
                })?;
                out.connect_timeout = Some(Duration::from_secs(seconds));
            }
            "application_name" | "ApplicationName" => out.application_name = Some(value),
            "options" => out.options = Some(value),
            "sslmode" => {
                if !matches!(value.as_str(), "disable" | "allow" | "prefer") {
                    return Err(bad(&format!(
                        "sslmode={value}: tenon connects without TLS (sslmode disable, allow \
                         or prefer)"
                    )));
                }
            }
            _ => {
                return Err(bad(&format!(
                    "unknown parameter `{key}`; tenon reads {PARAMETERS}"
                )));
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn postgres_url_user_info_parameters_and_ipv6() {
        let u =
            parse("jdbc:postgresql://al%40ice:p%2Fw@[::1]:6543/my%20db?connect_timeout=7").unwrap();
        assert_eq!(u.host, "::1");
        assert_eq!(u.port, 6543);
        assert_eq!(u.dbname, "my db");
        assert_eq!(u.user.as_deref(), Some("al@ice"));
        assert_eq!(u.password.as_deref(), Some("p/w"));
        assert_eq!(u.connect_timeout, Some(Duration::from_secs(7)));
        let u = parse("jdbc:postgresql://h/db?user=u&password=s3cret&ApplicationName=x").unwrap();
        assert_eq!((u.host.as_str(), u.port), ("h", 5432));
        assert_eq!(u.password.as_deref(), Some("s3cret"));
        assert_eq!(u.application_name.as_deref(), Some("x"));
        assert_eq!(parse("jdbc:postgresql://[::1]/d").unwrap().port, 5432);
        // an unencoded `/` in the password is refused before any host is
        // resolved, and the message does not show it
        let e = parse("jdbc:postgresql://u:pa/ss@h/db").unwrap_err();
        assert!(!e.contains("pa/ss") && !e.contains("ss@"), "{e}");
        let e = parse("jdbc:postgresql://u:123/ss@h/db").unwrap_err();
        assert!(!e.contains("123"), "{e}");
        let e = parse("jdbc:postgresql://h/db?password=zz&bogus=1").unwrap_err();
        assert!(e.contains("bogus") && !e.contains("zz"), "{e}");
        let e = parse("jdbc:postgresql://u:zz@h:99999/db").unwrap_err();
        assert!(e.contains("u:***@h:99999") && !e.contains("zz"), "{e}");
    }

    #[test]
    fn postgres_url_masked() {
        assert_eq!(
            masked("jdbc:postgresql://u:pw@h/db?user=u&Password=x&a=b"),
            "jdbc:postgresql://u:***@h/db?user=u&Password=***&a=b"
        );
        assert_eq!(masked("jdbc:postgresql://h/db"), "jdbc:postgresql://h/db");
        let sql = "CREATE TABLE c (id INT) WITH ('url' = 'jdbc:postgresql://u:pw@h/db', \
                   'PASSWORD' = 'it''s', 'username' = 'u')";
        let m = mask_secrets(sql);
        assert!(!m.contains("pw") && !m.contains("it''s"), "{m}");
        assert!(m.contains("'PASSWORD' = '***', 'username' = 'u'"), "{m}");
        assert_eq!(mask_secrets("'password' = 'cut off"), "'password' = '***");
    }
}
