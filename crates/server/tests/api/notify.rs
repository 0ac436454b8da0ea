//! The production senders against fakes started by the test: SMTP (lettre) to a minimal SMTP
//! server, and the SMS webhook to a small HTTP gateway.

use std::sync::{Arc, Mutex};

use regard::notify::mail::{Mail, Mailer, SmtpMailer};
use regard::notify::sms::{SmsSender, WebhookSms};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpListener;

/// A one-connection SMTP server that accepts one message and returns the SMTP dialogue's
/// envelope and the message data.
async fn fake_smtp() -> (u16, tokio::task::JoinHandle<(Vec<String>, String)>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let handle = tokio::spawn(async move {
        let (stream, _) = listener.accept().await.unwrap();
        let (read, mut write) = stream.into_split();
        let mut lines = BufReader::new(read).lines();
        write.write_all(b"220 fake ESMTP\r\n").await.unwrap();
        let mut commands = Vec::new();
        let mut data = String::new();
        while let Some(line) = lines.next_line().await.unwrap() {
            let upper = line.to_ascii_uppercase();
            if upper.starts_with("EHLO") || upper.starts_with("HELO") {
                write
                    .write_all(b"250-fake\r\n250 8BITMIME\r\n")
                    .await
                    .unwrap();
            } else if upper.starts_with("DATA") {
                write.write_all(b"354 go on\r\n").await.unwrap();
                while let Some(line) = lines.next_line().await.unwrap() {
                    if line == "." {
                        break;
                    }
                    data.push_str(&line);
                    data.push('\n');
                }
                write.write_all(b"250 queued\r\n").await.unwrap();
            } else if upper.starts_with("QUIT") {
                write.write_all(b"221 bye\r\n").await.unwrap();
                break;
            } else {
                commands.push(line.clone());
                write.write_all(b"250 ok\r\n").await.unwrap();
            }
        }
        (commands, data)
    });
    (port, handle)
}

#[tokio::test]
async fn smtp_mailer_delivers_a_multipart_message() {
    let (port, server) = fake_smtp().await;
    let mailer = SmtpMailer::new(
        &format!("smtp://127.0.0.1:{port}"),
        "Regard <no-reply@regard.test>",
    )
    .unwrap();
    mailer
        .send(&Mail {
            to: "ada@example.com".into(),
            subject: "Hello".into(),
            text: "Plain text body".into(),
            html: "<p>HTML body</p>".into(),
        })
        .await
        .unwrap();
    drop(mailer);
    let (commands, data) = tokio::time::timeout(std::time::Duration::from_secs(10), server)
        .await
        .expect("the SMTP dialogue ends")
        .unwrap();
    assert!(
        commands
            .iter()
            .any(|c| c.contains("MAIL FROM:<no-reply@regard.test>")),
        "{commands:?}"
    );
    assert!(
        commands
            .iter()
            .any(|c| c.contains("RCPT TO:<ada@example.com>")),
        "{commands:?}"
    );
    assert!(data.contains("Subject: Hello"), "{data}");
    assert!(data.contains("multipart/alternative"));
    assert!(data.contains("Plain text body") && data.contains("<p>HTML body</p>"));
}

#[tokio::test]
async fn sms_webhook_posts_json_and_reports_gateway_failures() {
    let received: Arc<Mutex<Vec<Value>>> = Arc::default();
    let store = Arc::clone(&received);
    let app = axum::Router::new()
        .route(
            "/sms",
            axum::routing::post(move |axum::Json(body): axum::Json<Value>| {
                let store = Arc::clone(&store);
                async move {
                    store.lock().unwrap().push(body);
                    axum::http::StatusCode::ACCEPTED
                }
            }),
        )
        .route(
            "/down",
            axum::routing::post(|| async { axum::http::StatusCode::BAD_GATEWAY }),
        );
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });

    let sender = WebhookSms::new(format!("http://{address}/sms")).unwrap();
    sender.send("+33612345678", "code 123456").await.unwrap();
    assert_eq!(
        *received.lock().unwrap(),
        vec![serde_json::json!({"to": "+33612345678", "body": "code 123456"})]
    );
    let failing = WebhookSms::new(format!("http://{address}/down")).unwrap();
    let err = failing.send("+33612345678", "code").await.unwrap_err();
    assert!(err.to_string().contains("502"), "{err}");
}
