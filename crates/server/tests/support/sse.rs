//! A reader of server-sent events (`GET /api/v1/events`), shared by the API and process
//! suites: events one by one with a deadline, the end of a stream, heatmap items until done.

// Each suite uses part of this module.
#![allow(dead_code)]

use reqwest::Response;
use serde_json::Value;

/// One server-sent event: its `event:` name (`message` when absent) and its `data:` lines.
#[derive(Debug, Clone)]
pub struct SseEvent {
    pub event: String,
    pub data: String,
}

impl SseEvent {
    /// `data` parsed as JSON (panics when it is not).
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.data).unwrap_or_else(|err| {
            panic!(
                "event {} has non-JSON data {:?}: {err}",
                self.event, self.data
            )
        })
    }
}

/// An open `GET /api/v1/events` stream, read incrementally.
pub struct EventStream {
    response: Response,
    buffer: Vec<u8>,
    event: Option<String>,
    data: Option<String>,
}

/// How long a test waits for events before failing.
pub const EVENT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(60);

impl EventStream {
    /// Reads an event stream answer up to its `ready` event (after which every event of the
    /// user is delivered).
    pub async fn open(response: Response) -> Self {
        let mut stream = Self {
            response,
            buffer: Vec::new(),
            event: None,
            data: None,
        };
        let ready = stream
            .next_before(tokio::time::Instant::now() + EVENT_TIMEOUT)
            .await;
        assert_eq!(ready.event, "ready", "first event {ready:?}");
        assert_eq!(ready.json(), serde_json::json!({}));
        stream
    }

    /// The next event, skipping `:` comments (panics when the stream ends). Lines end with LF
    /// or CRLF; a blank line ends an event; `data:` lines are joined with LF.
    pub async fn next(&mut self) -> SseEvent {
        loop {
            while let Some(end) = self.buffer.iter().position(|&b| b == b'\n') {
                let mut line: Vec<u8> = self.buffer.drain(..=end).collect();
                line.pop();
                if line.last() == Some(&b'\r') {
                    line.pop();
                }
                let line = String::from_utf8(line).expect("event stream is UTF-8");
                if line.is_empty() {
                    let (event, data) = (self.event.take(), self.data.take());
                    if event.is_some() || data.is_some() {
                        return SseEvent {
                            event: event.unwrap_or_else(|| "message".to_owned()),
                            data: data.unwrap_or_default(),
                        };
                    }
                    continue;
                }
                if line.starts_with(':') {
                    continue;
                }
                let (field, value) = line.split_once(':').unwrap_or((line.as_str(), ""));
                let value = value.strip_prefix(' ').unwrap_or(value);
                match field {
                    "event" => self.event = Some(value.to_owned()),
                    "data" => match &mut self.data {
                        Some(data) => {
                            data.push('\n');
                            data.push_str(value);
                        }
                        None => self.data = Some(value.to_owned()),
                    },
                    _ => {}
                }
            }
            match self.response.chunk().await.expect("event stream read") {
                Some(chunk) => self.buffer.extend_from_slice(&chunk),
                None => panic!("the event stream ended"),
            }
        }
    }

    /// Reads until the server ends the stream (failing the test past `deadline`); only
    /// comments may come meanwhile.
    pub async fn end_before(&mut self, deadline: tokio::time::Instant) {
        loop {
            let chunk = tokio::time::timeout_at(deadline, self.response.chunk())
                .await
                .expect("timed out waiting for the event stream to end")
                .expect("event stream read");
            match chunk {
                Some(chunk) => {
                    let text = String::from_utf8_lossy(&chunk);
                    assert!(
                        text.lines()
                            .all(|line| line.is_empty() || line.starts_with(':')),
                        "unexpected event before the end: {text:?}"
                    );
                }
                None => return,
            }
        }
    }

    /// The next event, failing the test when none comes before `deadline`.
    pub async fn next_before(&mut self, deadline: tokio::time::Instant) -> SseEvent {
        tokio::time::timeout_at(deadline, self.next())
            .await
            .expect("timed out waiting for an event")
    }

    /// Reads `heatmap_item` events until each of `item_ids` has reported `done` or `failed`
    /// (within [`EVENT_TIMEOUT`]). Returns every event read, in order; panics on any other
    /// kind of event.
    pub async fn until_finished(&mut self, item_ids: &[&str]) -> Vec<Value> {
        let deadline = tokio::time::Instant::now() + EVENT_TIMEOUT;
        let mut pending: Vec<&str> = item_ids.to_vec();
        let mut seen = Vec::new();
        while !pending.is_empty() {
            let event = self.next_before(deadline).await;
            assert_eq!(event.event, "heatmap_item", "unexpected event {event:?}");
            let data = event.json();
            if matches!(data["status"].as_str(), Some("done" | "failed")) {
                pending.retain(|id| data["item_id"] != *id);
            }
            seen.push(data);
        }
        seen
    }
}
