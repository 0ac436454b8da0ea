//! Connection limits: clients that send headers or bodies too slowly, idle connections and
//! too many connections are closed, while the server keeps answering others.

use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::helpers::{TestApp, spawn_app_with};

/// Far above the limits the tests configure: a connection still open after this is a failure.
const GIVE_UP: Duration = Duration::from_secs(15);

fn socket_address(app: &TestApp) -> String {
    app.address.trim_start_matches("http://").to_owned()
}

/// Reads until the server closes the connection (end of stream or reset); what it sent.
/// Panics when it is still open after [`GIVE_UP`].
async fn closed_by_server(stream: &mut TcpStream) -> String {
    let mut received = Vec::new();
    let read = tokio::time::timeout(GIVE_UP, async {
        let mut buffer = [0u8; 4096];
        loop {
            match stream.read(&mut buffer).await {
                Ok(0) | Err(_) => break,
                Ok(n) => received.extend_from_slice(&buffer[..n]),
            }
        }
    })
    .await;
    assert!(read.is_ok(), "the server kept the connection open");
    String::from_utf8_lossy(&received).into_owned()
}

#[tokio::test]
async fn unfinished_headers_and_idle_connections_are_closed_while_healthz_answers() {
    let app = spawn_app_with(|config| config.http_header_timeout = 0.5).await;
    let address = socket_address(&app);
    let mut streams = Vec::new();
    for _ in 0..40 {
        let mut stream = TcpStream::connect(&address).await.unwrap();
        stream
            .write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ")
            .await
            .unwrap();
        streams.push(stream);
    }
    // One connection says nothing at all; another finishes a request and then idles.
    streams.push(TcpStream::connect(&address).await.unwrap());
    let mut kept_alive = TcpStream::connect(&address).await.unwrap();
    kept_alive
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .unwrap();

    let health = app.get_url("/healthz").await;
    assert_eq!(health.status(), 200);

    let answers = futures::future::join_all(streams.iter_mut().map(closed_by_server)).await;
    assert!(answers.iter().all(|a| !a.contains("200 OK")), "{answers:?}");
    assert!(
        closed_by_server(&mut kept_alive)
            .await
            .starts_with("HTTP/1.1 200")
    );
}

#[tokio::test]
async fn a_body_slower_than_the_minimum_rate_is_cut_off() {
    let app = spawn_app_with(|config| {
        config.http_body_timeout = 0.5;
        config.http_body_min_rate = 1000;
    })
    .await;
    let mut stream = TcpStream::connect(socket_address(&app)).await.unwrap();
    stream
        .write_all(
            b"POST /auth/v1/signup HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
              Content-Length: 100000\r\n\r\n{\"email\": \"",
        )
        .await
        .unwrap();
    let answer = closed_by_server(&mut stream).await;
    assert!(answer.starts_with("HTTP/1.1 4"), "{answer}");
}

#[tokio::test]
async fn connections_past_the_cap_are_closed_at_once_and_slots_come_back() {
    let app = spawn_app_with(|config| {
        config.http_max_connections = 4;
        config.http_header_timeout = 60.0;
    })
    .await;
    let address = socket_address(&app);
    let mut held = Vec::new();
    for _ in 0..4 {
        let mut stream = TcpStream::connect(&address).await.unwrap();
        // A full request and its answer: the server has taken this connection.
        stream
            .write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            .await
            .unwrap();
        let mut buffer = [0u8; 12];
        stream.read_exact(&mut buffer).await.unwrap();
        assert_eq!(&buffer, b"HTTP/1.1 200");
        held.push(stream);
    }
    let mut refused = TcpStream::connect(&address).await.unwrap();
    let _ = refused
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        .await;
    assert_eq!(closed_by_server(&mut refused).await, "");

    drop(held);
    // The server frees a slot when it sees a connection close; until then, new ones are
    // closed at once, so this retries (each try is answered immediately).
    let answered = tokio::time::timeout(GIVE_UP, async {
        loop {
            let mut stream = TcpStream::connect(&address).await.unwrap();
            let _ = stream
                .write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                .await;
            if closed_by_server(&mut stream)
                .await
                .starts_with("HTTP/1.1 200")
            {
                break;
            }
        }
    })
    .await;
    assert!(answered.is_ok(), "no slot came back");
}
