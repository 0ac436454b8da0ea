//! The OpenAPI document of `/api/v1` and its checked-in copy, from which the web app's types
//! are generated (`web/src/api/`). `REGARD_UPDATE_OPENAPI=1 cargo test --test openapi`
//! rewrites the copy (as does `regard openapi > web/src/api/openapi.json`).

use std::path::PathBuf;

use regard::codes::{ErrorCode, FieldCode, JobErrorCode};
use serde_json::Value;

fn checked_in_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../web/src/api/openapi.json")
}

fn document() -> Value {
    serde_json::from_str(&regard::http::api::openapi::to_json(
        &regard::http::api::openapi(),
    ))
    .expect("the document is JSON")
}

#[test]
fn the_checked_in_document_is_the_servers() {
    let served = regard::http::api::openapi::to_json(&regard::http::api::openapi());
    let path = checked_in_path();
    if std::env::var_os("REGARD_UPDATE_OPENAPI").is_some() {
        std::fs::write(&path, &served).expect("write web/src/api/openapi.json");
    }
    let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        checked_in == served,
        "web/src/api/openapi.json is stale: run `REGARD_UPDATE_OPENAPI=1 cargo test -p regard \
         --test openapi`, then `npm run gen:api` in web/, and commit both"
    );
}

#[test]
fn the_code_tables_are_published_whole() {
    let doc = document();
    let values = |name: &str| -> Vec<String> {
        doc["components"]["schemas"][name]["enum"]
            .as_array()
            .unwrap_or_else(|| panic!("{name} is an enum schema"))
            .iter()
            .map(|v| v.as_str().unwrap().to_owned())
            .collect()
    };
    let strings = |all: Vec<&str>| all.into_iter().map(str::to_owned).collect::<Vec<_>>();
    assert_eq!(
        values("ErrorCode"),
        strings(ErrorCode::ALL.iter().map(|c| c.as_str()).collect())
    );
    assert_eq!(
        values("FieldCode"),
        strings(FieldCode::ALL.iter().map(|c| c.as_str()).collect())
    );
    assert_eq!(
        values("JobErrorCode"),
        strings(JobErrorCode::ALL.iter().map(|c| c.as_str()).collect())
    );
}

#[test]
fn every_operation_is_tagged_answers_errors_and_says_how_it_is_authorised() {
    let doc = document();
    assert_eq!(doc["openapi"].as_str().map(|v| &v[..3]), Some("3.1"));
    let paths = doc["paths"].as_object().expect("paths");
    assert!(!paths.is_empty());
    let mut ids = std::collections::HashSet::new();
    let public = [
        "/openapi.json",
        "/files/{media_id}/{variant}",
        "/shared/{token}",
        "/shared/{token}/report.pdf",
    ];
    for (path, item) in paths {
        for (method, operation) in item.as_object().unwrap() {
            let at = format!("{method} {path}");
            let id = operation["operationId"].as_str().expect("an operationId");
            assert!(ids.insert(id.to_owned()), "{at}: operationId {id} twice");
            assert!(
                operation["tags"].as_array().is_some_and(|t| t.len() == 1),
                "{at}: one tag"
            );
            assert!(
                operation["responses"]["default"]["$ref"] == "#/components/responses/Error",
                "{at}: the error answer"
            );
            let success = operation["responses"]
                .as_object()
                .unwrap()
                .keys()
                .filter(|status| status.starts_with('2'))
                .count();
            assert!(success >= 1, "{at}: a success answer");
            // Public operations say so with an empty requirement; the rest use the default.
            let open = operation["security"].as_array().is_some_and(|s| {
                s.iter()
                    .any(|r| r.as_object().is_some_and(|r| r.is_empty()))
            });
            assert_eq!(open, public.contains(&path.as_str()), "{at}: security");
        }
    }
    assert_eq!(doc["security"][0]["bearer"], serde_json::json!([]));
}

#[test]
fn every_reference_resolves() {
    fn walk(value: &Value, doc: &Value) {
        match value {
            Value::Object(map) => {
                if let Some(target) = map.get("$ref").and_then(Value::as_str) {
                    let pointer = target.strip_prefix('#').expect("a local reference");
                    assert!(
                        doc.pointer(pointer).is_some(),
                        "{target} is not in the document"
                    );
                }
                map.values().for_each(|v| walk(v, doc));
            }
            Value::Array(items) => items.iter().for_each(|v| walk(v, doc)),
            _ => {}
        }
    }
    let doc = document();
    walk(&doc, &doc);
}

#[test]
fn answers_have_every_field_and_requests_keep_their_optional_ones() {
    let doc = document();
    let schemas = &doc["components"]["schemas"];
    let required = |name: &str| -> Vec<String> {
        schemas[name]["required"]
            .as_array()
            .map(|r| r.iter().map(|v| v.as_str().unwrap().to_owned()).collect())
            .unwrap_or_default()
    };
    // An answer: `brand` is nullable but always sent.
    assert!(required("Creative").contains(&"brand".to_owned()));
    assert!(required("Location").contains(&"panel_quad".to_owned()));
    // A request body: only what must be sent.
    assert_eq!(required("NewCreative"), ["media_id"]);
}

/// Routes are registered with their documentation (`utoipa_axum`'s `routes!`), so none can be
/// served undocumented: no module of `/api/v1` adds a plain axum route.
#[test]
fn no_api_route_bypasses_the_document() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src/http/api");
    let mut modules = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "rs") {
            modules += 1;
            let text = std::fs::read_to_string(&path)
                .unwrap()
                .replace("OpenApiRouter", "");
            for forbidden in [".route(", "Router::new()", "axum::routing"] {
                assert!(
                    !text.contains(forbidden),
                    "{} uses {forbidden}: register routes with `.routes(routes!(…))`",
                    path.display()
                );
            }
        }
    }
    assert!(modules > 10);
}
