//! A PostgreSQL URL's password never shows in a message (issue 52), its
//! user info is not taken for a host name, an IPv6 literal is a host, and
//! a server that accepts a connection and never answers fails `CREATE
//! TABLE` after `'connect-timeout'` instead of hanging it.

use std::time::{Duration, Instant};

use crate::common::empty_session;

/// The error of a one-line script creating a PostgreSQL lookup table
/// with `url` and `more` options.
fn create(url: &str, more: &str) -> tenon::Error {
    empty_session(1, 8192)
        .execute_script(&format!(
            "CREATE TABLE c (id BIGINT) WITH ('connector' = 'jdbc', 'url' = '{url}', \
             'table-name' = 'customers'{more})"
        ))
        .unwrap_err()
}

/// A loopback port nothing listens on.
fn closed_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

#[test]
fn jdbc_url_password_never_echoed() {
    let port = closed_port();
    // user info: the host is 127.0.0.1 (refused), not `u:hunter2@127.0.0.1`
    let e = create(
        &format!("jdbc:postgresql://u:hunter2@127.0.0.1:{port}/db"),
        ", 'password' = 'hunter2'",
    );
    let text = e.to_string();
    assert!(!text.contains("hunter"), "{text}");
    assert!(
        text.contains(&format!("jdbc:postgresql://u:***@127.0.0.1:{port}/db")),
        "{text}"
    );
    assert_eq!(e.exit_code(), 3, "{text}");
    // parameters
    let e = create(
        &format!("jdbc:postgresql://127.0.0.1:{port}/db?user=u&password=hunter2"),
        "",
    );
    let text = e.to_string();
    assert!(!text.contains("hunter"), "{text}");
    assert!(text.contains("?user=u&password=***"), "{text}");
    // malformed: a `/` in the password is refused before connecting, and
    // no part of it is shown
    for url in [
        "jdbc:postgresql://u:hun/ter2@127.0.0.1:1/db".to_string(),
        "jdbc:postgresql://u:hunter2@127.0.0.1:99999/db".to_string(),
        "jdbc:postgresql://127.0.0.1/db?password=hunter2&bogus=1".to_string(),
        "postgresql://u:hunter2@127.0.0.1/db".to_string(),
    ] {
        let e = create(&url, "");
        let text = e.to_string();
        assert!(!text.contains("hunter") && !text.contains("ter2"), "{text}");
        assert_eq!(e.exit_code(), 2, "{url}: {text}");
    }
    // the URL's user and the 'username' option disagree
    let e = create(
        &format!("jdbc:postgresql://alice@127.0.0.1:{port}/db"),
        ", 'username' = 'bob'",
    );
    assert!(e.to_string().contains("differ"), "{e}");
}

#[test]
fn postgres_connect_timeout() {
    // a server that accepts connections (the kernel does, from the
    // listener's backlog) and never answers
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = silent.local_addr().unwrap().port();
    let started = Instant::now();
    let e = create(
        &format!("jdbc:postgresql://127.0.0.1:{port}/db"),
        ", 'connect-timeout' = '1s'",
    );
    let took = started.elapsed();
    assert!(took < Duration::from_secs(4), "took {took:?}: {e}");
    assert!(e.to_string().contains("no answer within 1s"), "{e}");
    assert_eq!(e.exit_code(), 3);
    // an IPv6 literal is a host (when this machine has IPv6 loopback)
    if let Ok(v6) = std::net::TcpListener::bind("[::1]:0") {
        let port = v6.local_addr().unwrap().port();
        let e = create(
            &format!("jdbc:postgresql://[::1]:{port}/db?connect_timeout=1"),
            "",
        );
        assert!(e.to_string().contains("no answer within 1s"), "{e}");
        drop(v6);
    }
    let e = create(
        &format!("jdbc:postgresql://127.0.0.1:{port}/db"),
        ", 'connect-timeout' = 'soon'",
    );
    assert!(e.to_string().contains("'connect-timeout' = 'soon'"), "{e}");
    assert_eq!(e.exit_code(), 2);
    drop(silent);
}
