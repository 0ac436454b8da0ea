//! The storage contract, checked against every configured backend: always the local folder,
//! and an S3-protocol server when `REGARD_TEST_S3=http://127.0.0.1:PORT` is set (see
//! `scripts/s3-test-server.sh`). Each S3 test works under its own key prefix in the bucket
//! named by `REGARD_TEST_S3_BUCKET` (default `regard-test`), so tests never see each other.

use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use bytes::Bytes;
use futures::{StreamExt, stream};
use regard::storage::{
    ByteStream, ObjectInfo, ObjectStorage, Storage, StorageError, StorageKey, from_url,
};
use tempfile::TempDir;

/// A backend under test. Keeps its temporary folder alive for the test's duration.
struct Backend {
    name: String,
    storage: Arc<dyn Storage>,
    root: Option<TempDir>,
}

/// The backends to run a test against. `test` names the S3 key prefix.
fn backends(test: &str) -> Vec<Backend> {
    let dir = tempfile::tempdir().unwrap();
    let local = ObjectStorage::local(dir.path()).unwrap();
    let mut all = vec![Backend {
        name: "local".to_owned(),
        storage: Arc::new(local),
        root: Some(dir),
    }];
    if let Some(endpoint) = std::env::var("REGARD_TEST_S3")
        .ok()
        .filter(|v| !v.is_empty())
    {
        let bucket =
            std::env::var("REGARD_TEST_S3_BUCKET").unwrap_or_else(|_| "regard-test".to_owned());
        let url = format!(
            "s3://{bucket}/{test}-{}?endpoint={endpoint}&region=us-east-1",
            uuid::Uuid::new_v4().simple()
        );
        let storage = from_url(Some(&url), Path::new("/nonexistent")).unwrap();
        all.push(Backend {
            name: format!("s3 ({})", storage.describe()),
            storage,
            root: None,
        });
    }
    all
}

fn key(s: &str) -> StorageKey {
    StorageKey::new(s).unwrap()
}

/// Deterministic, incompressible-looking test data (xorshift).
fn data(len: usize, seed: u64) -> Vec<u8> {
    let mut x = seed | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

/// `data` as a stream of `chunk`-sized pieces.
fn chunked(data: &[u8], chunk: usize) -> ByteStream {
    let pieces: Vec<std::io::Result<Bytes>> = data
        .chunks(chunk)
        .map(|c| Ok(Bytes::copy_from_slice(c)))
        .collect();
    Box::pin(stream::iter(pieces))
}

async fn collect(mut stream: ByteStream) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(chunk) = stream.next().await {
        out.extend_from_slice(&chunk.unwrap());
    }
    out
}

async fn read_range(storage: &dyn Storage, k: &StorageKey, range: Range<u64>) -> Vec<u8> {
    collect(storage.get_range(k, range).await.unwrap()).await
}

/// Every file under `root`, relative, sorted (to see staging leftovers in the local folder).
fn files_under(root: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, root: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, root, out);
            } else {
                out.push(path.strip_prefix(root).unwrap().to_owned());
            }
        }
    }
    let mut out = Vec::new();
    walk(root, root, &mut out);
    out.sort();
    out
}

#[test]
fn s3_runs_when_configured() {
    let configured = std::env::var("REGARD_TEST_S3").is_ok_and(|v| !v.is_empty());
    assert_eq!(backends("probe").len(), if configured { 2 } else { 1 });
}

/// An S3 endpoint that is down fails within seconds, as an error the API answers with 503
/// `unavailable` (credentials come from the S3 test server's environment).
#[tokio::test]
async fn an_s3_endpoint_that_is_down_fails_fast_as_unavailable() {
    if backends("down").len() < 2 {
        // Without S3 credentials in the environment there is no S3 client to build; the local
        // folder has no endpoint to be down. `s3_runs_when_configured` checks the switch.
        return;
    }
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let storage = from_url(
        Some(&format!(
            "s3://regard-test/down?endpoint=http://127.0.0.1:{closed}&region=us-east-1"
        )),
        Path::new("/nonexistent"),
    )
    .unwrap();
    let started = std::time::Instant::now();
    let err = storage.head(&key("a")).await.unwrap_err();
    assert!(err.is_unavailable(), "{err}");
    assert!(started.elapsed() < std::time::Duration::from_secs(15));
}

#[tokio::test]
async fn streamed_multi_megabyte_round_trip() {
    // 20 MiB: larger than one 8 MiB buffer, so S3 goes through a multipart upload.
    let body = data(20 * 1024 * 1024 + 123, 1);
    for b in backends("roundtrip") {
        let k = key("objects/ab/big.bin");
        let written = b.storage.put_stream(&k, chunked(&body, 64 * 1024)).await;
        assert_eq!(written.unwrap(), body.len() as u64, "{}", b.name);
        let read = collect(b.storage.get(&k).await.unwrap()).await;
        assert!(read == body, "{}: content differs", b.name);
        assert_eq!(
            b.storage.head(&k).await.unwrap().map(|i| i.size),
            Some(body.len() as u64),
            "{}",
            b.name
        );
    }
}

#[tokio::test]
async fn small_stream_and_bytes_round_trip() {
    for b in backends("small") {
        let k = key("a/small.txt");
        let n = b
            .storage
            .put_stream(&k, chunked(b"hello, storage", 4))
            .await
            .unwrap();
        assert_eq!(n, 14, "{}", b.name);
        assert_eq!(
            &b.storage.get_bytes(&k).await.unwrap()[..],
            b"hello, storage"
        );

        let k2 = key("b.bin");
        b.storage
            .put_bytes(&k2, Bytes::from_static(b"\x00\x01\x02"))
            .await
            .unwrap();
        assert_eq!(
            &b.storage.get_bytes(&k2).await.unwrap()[..],
            b"\x00\x01\x02"
        );
        assert!(b.storage.exists(&k2).await.unwrap(), "{}", b.name);

        // An empty stream stores an empty object.
        let k3 = key("empty");
        assert_eq!(b.storage.put_stream(&k3, chunked(b"", 1)).await.unwrap(), 0);
        assert_eq!(b.storage.head(&k3).await.unwrap().map(|i| i.size), Some(0));
    }
}

#[tokio::test]
async fn ranged_reads() {
    let body = data(1024 * 1024, 2);
    for b in backends("range") {
        let k = key("r/obj");
        b.storage
            .put_bytes(&k, Bytes::from(body.clone()))
            .await
            .unwrap();
        let s = b.storage.as_ref();
        assert_eq!(read_range(s, &k, 0..1).await, body[0..1], "{}", b.name);
        assert_eq!(
            read_range(s, &k, 1000..5000).await,
            body[1000..5000],
            "{}",
            b.name
        );
        let len = body.len() as u64;
        assert_eq!(
            read_range(s, &k, len - 10..len).await,
            body[body.len() - 10..],
            "{}",
            b.name
        );
        // An end past the object is clamped, like HTTP Range.
        assert_eq!(
            read_range(s, &k, len - 10..len + 1000).await,
            body[body.len() - 10..],
            "{}",
            b.name
        );
        for bad in [len..len + 1, len + 5..len + 10, 7..7] {
            let err = b.storage.get_range(&k, bad.clone()).await.err();
            assert!(
                matches!(err, Some(StorageError::InvalidRange { .. })),
                "{}: {bad:?} gave {err:?}",
                b.name
            );
        }
        let err = b.storage.get_range(&key("r/missing"), 0..10).await.err();
        assert!(
            matches!(err, Some(StorageError::NotFound(_))),
            "{}: {err:?}",
            b.name
        );
    }
}

#[tokio::test]
async fn missing_objects() {
    for b in backends("missing") {
        let k = key("nothing/here.jpg");
        assert_eq!(b.storage.head(&k).await.unwrap(), None, "{}", b.name);
        assert!(!b.storage.exists(&k).await.unwrap());
        let err = b.storage.get(&k).await.err();
        assert!(
            matches!(err, Some(StorageError::NotFound(ref s)) if s == "nothing/here.jpg"),
            "{}: {err:?}",
            b.name
        );
        assert!(matches!(
            b.storage.get_bytes(&k).await,
            Err(StorageError::NotFound(_))
        ));
    }
}

#[tokio::test]
async fn delete_is_idempotent() {
    for b in backends("delete") {
        let k = key("d/obj");
        b.storage
            .put_bytes(&k, Bytes::from_static(b"x"))
            .await
            .unwrap();
        b.storage.delete(&k).await.unwrap();
        assert_eq!(b.storage.head(&k).await.unwrap(), None, "{}", b.name);
        b.storage.delete(&k).await.unwrap();
        b.storage.delete(&key("never/existed")).await.unwrap();
    }
}

#[tokio::test]
async fn overwrite_replaces_the_object() {
    for b in backends("overwrite") {
        let k = key("o/obj");
        b.storage
            .put_bytes(&k, Bytes::from_static(b"first version, longer"))
            .await
            .unwrap();
        b.storage
            .put_stream(&k, chunked(b"second", 2))
            .await
            .unwrap();
        assert_eq!(
            &b.storage.get_bytes(&k).await.unwrap()[..],
            b"second",
            "{}",
            b.name
        );
        let info: ObjectInfo = b.storage.head(&k).await.unwrap().unwrap();
        assert_eq!(info.size, 6);
        // Written just now, by the storage's clock (a second of slack for S3 rounding).
        let now = regard::db::now_ms();
        assert!(
            (now - 60_000..=now + 1_000).contains(&info.modified_ms),
            "{}",
            b.name
        );
        let listed = b.storage.list_objects().await.unwrap();
        assert!(
            listed
                .iter()
                .any(|(key, i)| key == k.as_str() && i == &info),
            "{}",
            b.name
        );
    }
}

/// A stream that yields `good` bytes, then an error.
fn failing_stream(good: &[u8]) -> ByteStream {
    let ok = chunked(good, 256 * 1024);
    let fail = stream::iter([Err(std::io::Error::new(
        std::io::ErrorKind::ConnectionReset,
        "client went away",
    ))]);
    Box::pin(ok.chain(fail))
}

#[tokio::test]
async fn failed_stream_leaves_nothing_visible() {
    // Small (single PUT) and large (multipart, one part already uploaded) failures.
    for size in [1000, 10 * 1024 * 1024] {
        let body = data(size, 3);
        for b in backends("failed") {
            let k = key("f/new.bin");
            let err = b.storage.put_stream(&k, failing_stream(&body)).await;
            assert!(
                matches!(err, Err(StorageError::Source(ref e)) if e.kind() == std::io::ErrorKind::ConnectionReset),
                "{} ({size}): {err:?}",
                b.name
            );
            assert_eq!(b.storage.head(&k).await.unwrap(), None, "{}", b.name);
            assert!(matches!(
                b.storage.get(&k).await,
                Err(StorageError::NotFound(_))
            ));

            // A failed overwrite keeps the previous object intact.
            let old = key("f/old.bin");
            b.storage
                .put_bytes(&old, Bytes::from_static(b"previous"))
                .await
                .unwrap();
            assert!(
                b.storage
                    .put_stream(&old, failing_stream(&body))
                    .await
                    .is_err()
            );
            assert_eq!(&b.storage.get_bytes(&old).await.unwrap()[..], b"previous");

            // Locally, not even a staging file is left behind.
            if let Some(root) = &b.root {
                assert_eq!(files_under(root.path()), vec![PathBuf::from("f/old.bin")]);
            }
        }
    }
}

#[tokio::test]
async fn invalid_keys_are_rejected() {
    for bad in [
        "",
        "/etc/passwd",
        "../outside",
        "a/../../b",
        "a/./b",
        "a//b",
        "trailing/",
        ".hidden",
        "a/.tmp",
        "staged#1",
        "back\\slash",
        "C:/windows",
        "spa ce",
        "naïve",
    ] {
        let err = StorageKey::new(bad).err();
        assert!(
            matches!(err, Some(StorageError::InvalidKey { .. })),
            "{bad:?}: {err:?}"
        );
    }
    assert!(StorageKey::new("x".repeat(600)).is_err());
    for good in ["a", "ab/abcdef/original.jpg", "UPPER-lower_1.2"] {
        assert_eq!(StorageKey::new(good).unwrap().as_str(), good);
    }
}

#[tokio::test]
async fn from_url_picks_the_backend() {
    let dir = tempfile::tempdir().unwrap();

    // Absent or empty: <data dir>/media, created on demand.
    for url in [None, Some(""), Some("  ")] {
        let storage = from_url(url, dir.path()).unwrap();
        assert!(
            storage.describe().ends_with("/media"),
            "{}",
            storage.describe()
        );
        storage
            .put_bytes(&key("x/y"), Bytes::from_static(b"1"))
            .await
            .unwrap();
        assert!(dir.path().join("media/x/y").is_file());
    }

    let elsewhere = dir.path().join("elsewhere");
    let url = format!("file://{}", elsewhere.display());
    let storage = from_url(Some(&url), dir.path()).unwrap();
    storage
        .put_bytes(&key("z"), Bytes::from_static(b"2"))
        .await
        .unwrap();
    assert!(elsewhere.join("z").is_file());

    for bad in [
        "ftp://host/path",
        "s3://",
        "s3://bucket?colour=blue",
        "s3://AKIA:secret@bucket?region=us-east-1",
        "not a url",
    ] {
        let err = from_url(Some(bad), dir.path()).err();
        assert!(
            matches!(err, Some(StorageError::InvalidUrl(_))),
            "{bad:?}: {err:?}"
        );
        assert!(!err.unwrap().to_string().contains("secret"), "{bad:?}");
    }

    // An S3 URL builds without contacting the server.
    let storage = from_url(
        Some("s3://media-bucket/regard?endpoint=http://127.0.0.1:9&region=eu-west-3"),
        dir.path(),
    )
    .unwrap();
    assert_eq!(
        storage.describe(),
        "s3://media-bucket/regard (endpoint http://127.0.0.1:9)"
    );
}
