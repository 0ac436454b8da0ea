//! The OpenAPI 3.1 document of `/api/v1`, served at `GET /api/v1/openapi.json`.
//!
//! The paths come from the handlers' `#[utoipa::path]` annotations, registered with their
//! routes through `utoipa_axum`'s `routes!` (so a route cannot be served without being
//! documented); the schemas from the body types' `ToSchema`. [`ApiDoc`] adds what is common:
//! the bearer security scheme, the error body as every operation's `default` answer, and the
//! three code tables. The web app's API types are generated from this document
//! (`web/src/api/openapi.json` → `web/src/api/schema.d.ts`); `tests/openapi.rs` fails when the
//! checked-in copy differs from what the server serves.

use serde_json::Value;
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::openapi::{ContentBuilder, Ref, RefOr, ResponseBuilder};
use utoipa::{Modify, OpenApi};

use super::error::ErrorBody;
use crate::codes::{ErrorCode, FieldCode, JobErrorCode};
use crate::heatmaps::job::HeatmapItemEvent;
use crate::simulations::job::SimulationEvent;

/// Name of the bearer-token security scheme.
pub const BEARER: &str = "bearer";

/// The parts of the document that no handler gives.
#[derive(OpenApi)]
#[openapi(
    info(
        title = "Regard API",
        version = "1",
        description = "The domain API of Regard: media, creatives, locations, simulations, \
            attention heatmaps and the assistant. Every answer is JSON unless the operation \
            says otherwise; every error is an `ErrorBody` whose `code` is one of `ErrorCode`. \
            Authentication: the access token of a GoTrue session (`/auth/v1`) as a bearer \
            token.",
        license(name = "Proprietary")
    ),
    servers((url = "/api/v1")),
    components(schemas(
        ErrorBody,
        ErrorCode,
        FieldCode,
        JobErrorCode,
        HeatmapItemEvent,
        SimulationEvent
    )),
    security(("bearer" = [])),
    tags(
        (name = "account", description = "The signed-in account: sessions and recovery codes"),
        (name = "media", description = "Uploaded images and their signed file links"),
        (name = "creatives", description = "The ad images of the library"),
        (name = "locations", description = "Out-of-home sites: photo, panel corners, address"),
        (name = "simulations", description = "A creative placed on a location's panel"),
        (name = "plans", description = "Campaign plans: a creative on dated sites, in contacts"),
        (name = "heatmaps", description = "Attention heatmaps and their images"),
        (name = "areas", description = "Areas of interest on a heatmap image"),
        (name = "deliverables", description = "Exports, reports and share links"),
        (name = "events", description = "The live event stream"),
        (name = "assistant", description = "The chat assistant and the help articles"),
        (name = "workspaces", description = "Shared workspaces: members, roles, invitations, activity"),
        (name = "reviews", description = "Comments and approval on heatmaps and simulations"),
        (name = "meta", description = "This document")
    )
)]
pub struct ApiDoc;

/// Adds the bearer scheme and the shared error answer to every operation: run on the whole
/// document, once the routers' paths are in it (by [`finish`]).
struct Common;

impl Modify for Common {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            BEARER,
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .bearer_format("JWT")
                    .description(Some(
                        "The access token of a session from `/auth/v1` (`Authorization: Bearer …`)",
                    ))
                    .build(),
            ),
        );
        components.responses.insert(
            "Error".to_owned(),
            RefOr::T(
                ResponseBuilder::new()
                    .description(
                        "An error: the status and `code` come from `ErrorCode`; \
                         `validation_failed` lists the fields in `details.fields`",
                    )
                    .content(
                        "application/json",
                        ContentBuilder::new()
                            .schema(Some(Ref::from_schema_name("ErrorBody")))
                            .build(),
                    )
                    .build(),
            ),
        );
        for item in openapi.paths.paths.values_mut() {
            for operation in [
                &mut item.get,
                &mut item.post,
                &mut item.put,
                &mut item.patch,
                &mut item.delete,
            ]
            .into_iter()
            .flatten()
            {
                operation
                    .responses
                    .responses
                    .entry("default".to_owned())
                    .or_insert_with(|| RefOr::Ref(Ref::from_response_name("Error")));
            }
        }
    }
}

/// The finished document: the bearer scheme and the error answer (`Common`), then three rules
/// the derive cannot express.
///
/// - Each `operationId` is `<tag>_<handler>` (`creatives_list`), unique across the API;
///   `utoipa` would give the bare handler name, which several modules share.
/// - In every schema an answer uses, every property is required: serde writes `None` as
///   `null`, never leaves a key out (no response type skips a field), so a client can count on
///   each key being there. Request bodies keep their optional fields.
/// - The text fields of request bodies say which characters they take: a body field marked
///   `format = "line"`, `"name"` or `"lines"` (see [`TEXT_FORMATS`]) gets the matching
///   `pattern` instead of the marker, the rule `body::text` applies.
pub fn finish(mut doc: utoipa::openapi::OpenApi) -> Value {
    Common.modify(&mut doc);
    let mut value = serde_json::to_value(&doc).expect("an OpenAPI document always serialises");
    name_operations(&mut value);
    require_answer_fields(&mut value);
    text_patterns(&mut value);
    add_links(&mut value);
    scope_to_workspaces(&mut value);
    value
}

/// The tags whose operations act in a workspace (the library).
const WORKSPACE_TAGS: [&str; 11] = [
    "media",
    "creatives",
    "locations",
    "simulations",
    "plans",
    "heatmaps",
    "areas",
    "deliverables",
    "events",
    "assistant",
    "reviews",
];

/// Operations of those tags that do not: the help articles are the same for everyone.
const NOT_IN_A_WORKSPACE: [&str; 2] = ["assistant_list_help", "assistant_get_help"];

/// Operations a viewer may call although their method is not GET (their handlers take
/// `input::Reader`): those that change nothing in the library, and the review's comments and
/// status (a viewer is often the client who approves).
pub const VIEWER_MAY_CALL: [&str; 8] = [
    "assistant_chat",
    "deliverables_renders_zip",
    "reviews_comment_heatmap",
    "reviews_delete_heatmap_comment",
    "reviews_review_heatmap",
    "reviews_comment_simulation",
    "reviews_delete_simulation_comment",
    "reviews_review_simulation",
];

/// The request header naming the workspace (see `auth::extract::WORKSPACE_HEADER`).
const WORKSPACE_PARAMETER: &str = "X-Workspace-Id";

/// Gives each operation that acts in a workspace (see [`WORKSPACE_TAGS`]; not the public ones)
/// the optional `X-Workspace-Id` header and `x-workspace-roles`, the roles that may call it:
/// every role for a read (GET) or one of [`VIEWER_MAY_CALL`], owners and editors otherwise.
/// The authorisation test reads both, so a new route is checked as soon as it is documented.
fn scope_to_workspaces(doc: &mut Value) {
    let Some(paths) = doc["paths"].as_object_mut() else {
        return;
    };
    let operations = paths
        .values_mut()
        .filter_map(Value::as_object_mut)
        .flat_map(|item| item.iter_mut())
        .filter(|(method, _)| METHODS.contains(&method.as_str()));
    for (method, operation) in operations {
        let tag = operation["tags"][0].as_str().unwrap_or("");
        let id = operation["operationId"].as_str().unwrap_or("").to_owned();
        let public = operation["security"].as_array().is_some_and(|s| {
            s.iter()
                .all(|r| r.as_object().is_some_and(|r| r.is_empty()))
        });
        if !WORKSPACE_TAGS.contains(&tag) || NOT_IN_A_WORKSPACE.contains(&id.as_str()) || public {
            continue;
        }
        let reads = method == "get" || VIEWER_MAY_CALL.contains(&id.as_str());
        let roles: &[&str] = if reads {
            &["owner", "editor", "viewer"]
        } else {
            &["owner", "editor"]
        };
        operation["x-workspace-roles"] = serde_json::json!(roles);
        let parameter = serde_json::json!({
            "name": WORKSPACE_PARAMETER,
            "in": "header",
            "required": false,
            "description": "The workspace the request acts in (an id from `GET /workspaces`); \
                the caller's personal workspace without it. A workspace the caller is not a \
                member of answers 404 `not_found`, as an unknown id does; a change by a \
                viewer answers 403 `forbidden_role`.",
            "schema": { "type": "string", "format": "uuid" }
        });
        match operation["parameters"].as_array_mut() {
            Some(parameters) => parameters.push(parameter),
            None => operation["parameters"] = Value::Array(vec![parameter]),
        }
    }
}

/// An OpenAPI link: which ids of a creation's answer the operations on what it created take,
/// where the path names alone do not say it (an image of a heatmap is `item_id`, the heatmap's
/// `items[].id`).
struct Link {
    /// The creating operation and its success status.
    from: &'static str,
    status: &'static str,
    /// The operation the link leads to, and its parameters as runtime expressions.
    to: &'static str,
    parameters: &'static [(&'static str, &'static str)],
}

const LINKS: [Link; 5] = [
    Link {
        from: "heatmaps_create",
        status: "202",
        to: "areas_create",
        parameters: ITEM_OF_HEATMAP,
    },
    Link {
        from: "heatmaps_create",
        status: "202",
        to: "deliverables_export_item",
        parameters: ITEM_OF_HEATMAP,
    },
    Link {
        from: "heatmaps_create",
        status: "202",
        to: "heatmaps_retry",
        parameters: ITEM_OF_HEATMAP,
    },
    Link {
        from: "areas_create",
        status: "201",
        to: "areas_update",
        parameters: AREA_OF_ITEM,
    },
    Link {
        from: "areas_create",
        status: "201",
        to: "areas_delete_one",
        parameters: AREA_OF_ITEM,
    },
];
const ITEM_OF_HEATMAP: &[(&str, &str)] = &[
    ("id", "$response.body#/id"),
    ("item_id", "$response.body#/items/0/id"),
];
const AREA_OF_ITEM: &[(&str, &str)] = &[
    ("id", "$request.path.id"),
    ("item_id", "$request.path.item_id"),
    ("aoi_id", "$response.body#/id"),
];

fn add_links(doc: &mut Value) {
    for link in &LINKS {
        let Some(operation) = operations_mut(doc).find(|op| op["operationId"] == link.from) else {
            continue;
        };
        let parameters: serde_json::Map<String, Value> = link
            .parameters
            .iter()
            .map(|(name, expression)| ((*name).to_owned(), Value::String((*expression).to_owned())))
            .collect();
        let response = &mut operation["responses"][link.status];
        assert!(
            response.is_object(),
            "{} answers no {} to link from",
            link.from,
            link.status
        );
        response["links"][link.to] =
            serde_json::json!({ "operationId": link.to, "parameters": parameters });
    }
}

/// The markers of text fields (`#[schema(format = "line")]` on a body field) and the pattern
/// each stands for. `body::text` trims a text (Unicode's `White_Space`, as `str::trim`), reads
/// an empty one as `null` and refuses control characters (Unicode's `Cc`: U+0000–U+001F and
/// U+007F–U+009F) in what is left, but tabs and line breaks in several lines:
///
/// - `line`: one line, may be empty (it then clears the field);
/// - `name`: one line with at least one character that is not a space (a name cannot be
///   cleared: an empty one is `required`);
/// - `lines`: several lines, may be empty;
/// - `text`: several lines with at least one character that is not a space (a comment).
///
/// Each pattern is: spaces, then nothing or a text that starts and ends with a character that
/// is neither a space nor refused, with no refused character inside, then spaces.
pub const TEXT_FORMATS: [(&str, &str); 4] = [
    (
        "line",
        r"^[\t\n\u000b\u000c\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*(?:[^\t\n\u000b\u000c\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\u0000-\u001f\u007f-\u009f](?:[^\u0000-\u001f\u007f-\u009f]*[^\t\n\u000b\u000c\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\u0000-\u001f\u007f-\u009f])?)?[\t\n\u000b\u000c\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*$",
    ),
    (
        "name",
        r"^[\t\n\u000b\u000c\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*[^\t\n\u000b\u000c\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\u0000-\u001f\u007f-\u009f](?:[^\u0000-\u001f\u007f-\u009f]*[^\t\n\u000b\u000c\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\u0000-\u001f\u007f-\u009f])?[\t\n\u000b\u000c\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*$",
    ),
    (
        "lines",
        r"^[\t\n\u000b\u000c\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*(?:[^\t\n\u000b\u000c\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f](?:[^\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]*[^\t\n\u000b\u000c\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f])?)?[\t\n\u000b\u000c\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*$",
    ),
    (
        "text",
        r"^[\t\n\u000b\u000c\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*[^\t\n\u000b\u000c\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f](?:[^\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]*[^\t\n\u000b\u000c\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f])?[\t\n\u000b\u000c\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*$",
    ),
];

/// Replaces each text marker (see [`TEXT_FORMATS`]) by its pattern, anywhere in the document.
fn text_patterns(value: &mut Value) {
    match value {
        Value::Object(map) => {
            let pattern = map
                .get("format")
                .and_then(Value::as_str)
                .and_then(|format| {
                    TEXT_FORMATS
                        .iter()
                        .find(|(name, _)| *name == format)
                        .map(|(_, pattern)| *pattern)
                });
            if let Some(pattern) = pattern {
                map.remove("format");
                map.insert("pattern".into(), Value::String(pattern.to_owned()));
            }
            map.values_mut().for_each(text_patterns);
        }
        Value::Array(items) => items.iter_mut().for_each(text_patterns),
        _ => {}
    }
}

/// The document as served, pretty-printed with a final newline (the form checked in).
pub fn to_json(doc: &Value) -> String {
    let mut text = serde_json::to_string_pretty(doc).expect("JSON values always serialise");
    text.push('\n');
    text
}

const METHODS: [&str; 5] = ["get", "post", "put", "patch", "delete"];

fn operations_mut(doc: &mut Value) -> impl Iterator<Item = &mut Value> {
    doc["paths"]
        .as_object_mut()
        .into_iter()
        .flat_map(|paths| paths.values_mut())
        .flat_map(|item| {
            item.as_object_mut()
                .into_iter()
                .flat_map(|item| item.iter_mut())
                .filter(|(method, _)| METHODS.contains(&method.as_str()))
                .map(|(_, operation)| operation)
        })
}

fn name_operations(doc: &mut Value) {
    for operation in operations_mut(doc) {
        let tag = operation["tags"][0].as_str().unwrap_or("api").to_owned();
        if let Some(id) = operation["operationId"].as_str() {
            operation["operationId"] = Value::String(format!("{tag}_{id}"));
        }
    }
}

/// The schema names `value` refers to (`#/components/schemas/<name>`), anywhere inside it.
fn collect_refs(value: &Value, into: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            if let Some(name) = map
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| r.strip_prefix("#/components/schemas/"))
            {
                into.push(name.to_owned());
            }
            map.values().for_each(|v| collect_refs(v, into));
        }
        Value::Array(items) => items.iter().for_each(|v| collect_refs(v, into)),
        _ => {}
    }
}

fn require_answer_fields(doc: &mut Value) {
    // The schemas the answers name (successes, and the refusals an operation documents
    // itself, such as an import's 422), and everything they name in turn.
    let mut pending = Vec::new();
    for operation in operations_mut(doc) {
        if let Some(responses) = operation["responses"].as_object() {
            for response in responses.values() {
                collect_refs(response, &mut pending);
            }
        }
    }
    pending.push("ErrorBody".to_owned());
    // The live events' data (`GET /events` is a stream the document cannot describe key by key).
    pending.push("HeatmapItemEvent".to_owned());
    pending.push("SimulationEvent".to_owned());
    let mut answered = std::collections::BTreeSet::new();
    while let Some(name) = pending.pop() {
        if answered.insert(name.clone()) {
            collect_refs(&doc["components"]["schemas"][&name], &mut pending);
        }
    }
    for name in answered {
        require_all(&mut doc["components"]["schemas"][&name]);
    }
}

/// Every property of an object schema is required, and so of every schema written inline in it
/// (the parts of an `allOf` made by a flattened field, the items of an inline list).
fn require_all(schema: &mut Value) {
    match schema {
        Value::Object(map) => {
            if let Some(properties) = map.get("properties").and_then(Value::as_object) {
                let all: Vec<Value> = properties.keys().cloned().map(Value::String).collect();
                map.insert("required".into(), Value::Array(all));
            }
            map.values_mut().for_each(require_all);
        }
        Value::Array(items) => items.iter_mut().for_each(require_all),
        _ => {}
    }
}
