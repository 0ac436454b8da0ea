//! `GET /api/v1/openapi.json`: served without an account, the document the web app's types
//! are generated from; and real answers of every part of the API conform to it, deeply
//! (every documented key present, no other key, types, enums and nullability as documented).

use reqwest::{Method, Response};
use serde_json::{Value, json};

use crate::fixtures::{jpeg, png};
use crate::helpers::{TestApp, User, spawn_app};

#[tokio::test]
async fn the_document_is_served_without_an_account() {
    let app = spawn_app().await;
    let response = app
        .client
        .get(app.url("/api/v1/openapi.json"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert!(
        response.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("application/json")
    );
    let served: Value = response.json().await.unwrap();
    assert_eq!(served, regard::http::api::openapi());
    assert_eq!(served["info"]["title"], "Regard API");
}

/// Adds the properties of `schema` (resolving references, and the parts of an `allOf`, which
/// may be flattened objects themselves) to `merged`.
fn merge_parts(doc: &Value, schema: &Value, merged: &mut Value) {
    let schema = match schema["$ref"].as_str() {
        Some(target) => doc.pointer(target.trim_start_matches('#')).unwrap(),
        None => schema,
    };
    for part in schema["allOf"].as_array().into_iter().flatten() {
        merge_parts(doc, part, merged);
    }
    for (key, property) in schema["properties"].as_object().into_iter().flatten() {
        merged["properties"][key] = property.clone();
    }
}

/// Checks `value` against `schema` (resolving references in `doc`); `at` names the place.
fn conforms(doc: &Value, schema: &Value, value: &Value, at: &str) -> Result<(), String> {
    if let Some(target) = schema["$ref"].as_str() {
        let pointer = target.trim_start_matches('#');
        let resolved = doc.pointer(pointer).ok_or(format!("{at}: no {target}"))?;
        return conforms(doc, resolved, value, at);
    }
    if let Some(options) = schema["oneOf"].as_array().or(schema["anyOf"].as_array()) {
        let errors: Vec<String> = options
            .iter()
            .filter_map(|option| conforms(doc, option, value, at).err())
            .collect();
        return if errors.len() < options.len() {
            Ok(())
        } else {
            Err(errors.join(" | "))
        };
    }
    if schema["allOf"].is_array() {
        // A flattened object: its keys are the union of the parts' properties.
        let mut merged = json!({"type": "object", "properties": {}});
        merge_parts(doc, schema, &mut merged);
        return conforms(doc, &merged, value, at);
    }
    let types: Vec<&str> = match &schema["type"] {
        Value::String(one) => vec![one.as_str()],
        Value::Array(many) => many.iter().filter_map(Value::as_str).collect(),
        _ => vec![],
    };
    let matches = |ty: &str| match ty {
        "null" => value.is_null(),
        "boolean" => value.is_boolean(),
        "string" => value.is_string(),
        "integer" => value.is_i64() || value.is_u64(),
        "number" => value.is_number(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        _ => false,
    };
    if !types.is_empty() && !types.iter().any(|ty| matches(ty)) {
        return Err(format!("{at}: {value} is not {types:?}"));
    }
    if let Some(allowed) = schema["enum"].as_array()
        && !value.is_null()
        && !allowed.contains(value)
    {
        return Err(format!("{at}: {value} is not one of {allowed:?}"));
    }
    match value {
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                conforms(doc, &schema["items"], item, &format!("{at}[{i}]"))?;
            }
        }
        Value::Object(map) => {
            if let Some(properties) = schema["properties"].as_object() {
                let mut documented: Vec<&String> = properties.keys().collect();
                let mut got: Vec<&String> = map.keys().collect();
                documented.sort();
                got.sort();
                if documented != got {
                    return Err(format!("{at}: keys {got:?}, documented {documented:?}"));
                }
                for (key, property) in properties {
                    conforms(doc, property, &map[key], &format!("{at}.{key}"))?;
                }
            } else if schema["additionalProperties"].is_object() {
                for (key, item) in map {
                    conforms(
                        doc,
                        &schema["additionalProperties"],
                        item,
                        &format!("{at}.{key}"),
                    )?;
                }
            }
        }
        _ => {}
    }
    Ok(())
}

/// Sends a request and checks its JSON answer against the document's schema for the
/// operation `method template` and the answer's status.
struct Checker<'a> {
    app: &'a TestApp,
    user: &'a User,
    doc: Value,
    checked: Vec<String>,
    /// A concrete path of each operation called (`PATCH /creatives/{id}` → its path).
    paths: std::collections::HashMap<String, String>,
}

impl Checker<'_> {
    async fn call(
        &mut self,
        method: Method,
        template: &str,
        path: &str,
        body: Option<Value>,
    ) -> Value {
        let request = self.app.api(method.clone(), path, self.user);
        let response: Response = match body {
            Some(body) => request.json(&body).send().await.unwrap(),
            None => request.send().await.unwrap(),
        };
        let status = response.status().as_u16().to_string();
        assert!(status.starts_with('2'), "{method} {path}: {status}");
        let value: Value = response.json().await.unwrap();
        let operation = &self.doc["paths"][template][method.as_str().to_lowercase()];
        let schema = &operation["responses"][&status]["content"]["application/json"]["schema"];
        assert!(
            !schema.is_null(),
            "{method} {template} {status} is not documented"
        );
        if let Err(problem) = conforms(&self.doc, schema, &value, &format!("{method} {template}")) {
            panic!("{problem}\nin {value:#}");
        }
        self.checked.push(format!("{method} {template}"));
        self.paths
            .insert(format!("{method} {template}"), path.to_owned());
        value
    }
}

#[tokio::test]
async fn answers_conform_to_the_document() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let mut c = Checker {
        app: &app,
        user: &user,
        doc: regard::http::api::openapi(),
        checked: Vec::new(),
        paths: std::collections::HashMap::new(),
    };
    let id = |v: &Value| v["id"].as_str().unwrap().to_owned();

    let media = app.upload_ok(&user, "a.png", png(400, 300)).await;
    let photo = app.upload_ok(&user, "gare.jpg", jpeg(640, 480)).await;
    // The upload's answer (multipart, so not through `call`).
    let upload = &c.doc["paths"]["/media"]["post"]["responses"]["201"]["content"]["application/json"]
        ["schema"];
    conforms(&c.doc, upload, &media, "POST /media").unwrap();
    c.checked.push("POST /media".into());
    c.call(
        Method::GET,
        "/media/{id}",
        &format!("/media/{}", id(&media)),
        None,
    )
    .await;
    c.call(Method::GET, "/usage", "/usage", None).await;

    let creative = c
        .call(
            Method::POST,
            "/creatives",
            "/creatives",
            Some(json!({"media_id": media["id"], "brand": "Marque"})),
        )
        .await;
    c.call(Method::GET, "/creatives", "/creatives", None).await;
    c.call(Method::GET, "/creatives/facets", "/creatives/facets", None)
        .await;
    let path = format!("/creatives/{}", id(&creative));
    c.call(
        Method::PATCH,
        "/creatives/{id}",
        &path,
        Some(json!({"notes": "x"})),
    )
    .await;
    c.call(Method::GET, "/creatives/{id}", &path, None).await;

    let location = c
        .call(
            Method::POST,
            "/locations",
            "/locations",
            Some(json!({
                "name": "Gare",
                "format": "billboard_4x3",
                "photo_media_id": photo["id"],
                "panel_quad": [[0.2, 0.2], [0.8, 0.25], [0.8, 0.75], [0.2, 0.8]],
                "audience": "road", "viewing_distance_min_m": 10, "viewing_distance_max_m": 120,
            })),
        )
        .await;
    c.call(Method::GET, "/locations", "/locations", None).await;
    c.call(
        Method::GET,
        "/locations/formats",
        "/locations/formats",
        None,
    )
    .await;
    for path in ["/locations/facets", "/locations/positions", "/map"] {
        c.call(Method::GET, path, path, None).await;
    }
    c.call(
        Method::GET,
        "/locations",
        "/locations?sort=city&format=billboard_4x3&limit=1",
        None,
    )
    .await;
    // An import's answers (multipart, so not through `call`): 200, then 422 with rows refused
    // and 422 for the request itself, all three as documented.
    let import = &c.doc["paths"]["/locations/import"]["post"]["responses"];
    for (text, status) in [
        ("name,width_m\nGare,4\n", 200),
        ("name,width_m\nGare,wide\n", 422),
        ("city\nÉvry\n", 422),
    ] {
        let part = reqwest::multipart::Part::bytes(text.as_bytes().to_vec()).file_name("i.csv");
        let response = app
            .api(Method::POST, "/locations/import", &user)
            .multipart(reqwest::multipart::Form::new().part("file", part))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), status);
        let answer: Value = response.json().await.unwrap();
        let schema = &import[status.to_string()]["content"]["application/json"]["schema"];
        conforms(&c.doc, schema, &answer, "POST /locations/import").unwrap();
    }
    c.checked.push("POST /locations/import".into());
    let path = format!("/locations/{}", id(&location));
    c.call(Method::GET, "/locations/{id}", &path, None).await;
    c.call(
        Method::PATCH,
        "/locations/{id}",
        &path,
        Some(json!({"illumination": "back", "latitude": 48.85, "longitude": 2.35})),
    )
    .await;

    let simulation = c
        .call(
            Method::POST,
            "/simulations",
            "/simulations",
            Some(json!({"creative_id": creative["id"], "location_id": location["id"]})),
        )
        .await;
    app.drain_jobs().await;
    let sim_path = format!("/simulations/{}", id(&simulation));
    let rendered = c
        .call(Method::GET, "/simulations/{id}", &sim_path, None)
        .await;
    assert_eq!(rendered["status"], "done");
    c.call(
        Method::PATCH,
        "/simulations/{id}",
        &sim_path,
        Some(json!({"adjustments": {"night": "led"}, "render": false})),
    )
    .await;
    let redone = c
        .call(
            Method::POST,
            "/simulations/{id}/render",
            &format!("{sim_path}/render"),
            None,
        )
        .await;
    assert_eq!(redone["status"], "queued");
    app.drain_jobs().await;
    c.call(
        Method::POST,
        "/simulations/batch",
        "/simulations/batch",
        Some(json!({"creative_id": creative["id"], "location_ids": [location["id"]]})),
    )
    .await;
    c.call(Method::GET, "/simulations", "/simulations", None)
        .await;
    let queued = c
        .call(
            Method::POST,
            "/simulations/{id}/attention",
            &format!("{sim_path}/attention"),
            None,
        )
        .await;
    app.drain_jobs().await;
    let analysed = c
        .call(Method::GET, "/simulations/{id}", &sim_path, None)
        .await;
    assert_eq!(analysed["attention"]["status"], "done");
    assert!(analysed["audience"].is_object());

    let plan = c
        .call(
            Method::POST,
            "/plans",
            "/plans",
            Some(json!({"name": "Soldes", "creative_id": creative["id"],
                        "location_ids": [location["id"]],
                        "start_date": "2027-01-07", "end_date": "2027-01-20"})),
        )
        .await;
    app.drain_jobs().await;
    let plan_path = format!("/plans/{}", id(&plan));
    c.call(Method::GET, "/plans/{id}", &plan_path, None).await;
    c.call(
        Method::PATCH,
        "/plans/{id}",
        &plan_path,
        Some(json!({"end_date": "2027-01-31"})),
    )
    .await;
    c.call(Method::GET, "/plans", "/plans", None).await;

    let heatmap = c
        .call(
            Method::POST,
            "/heatmaps",
            "/heatmaps",
            Some(json!({"name": "Campagne", "media_ids": [media["id"], photo["id"]]})),
        )
        .await;
    app.drain_jobs().await;
    let heatmap_path = format!("/heatmaps/{}", id(&heatmap));
    let done = c
        .call(Method::GET, "/heatmaps/{id}", &heatmap_path, None)
        .await;
    let item_id = done["items"][0]["id"].as_str().unwrap().to_owned();
    let aoi = c
        .call(
            Method::POST,
            "/heatmaps/{id}/items/{item_id}/aois",
            &format!("{heatmap_path}/items/{item_id}/aois"),
            Some(
                json!({"name": "Logo", "rect": {"x": 0.1, "y": 0.1, "width": 0.3, "height": 0.2}}),
            ),
        )
        .await;
    assert!(aoi["attention"].is_object());
    c.call(
        Method::PATCH,
        "/heatmaps/{id}/items/{item_id}/aois/{aoi_id}",
        &format!("{heatmap_path}/items/{item_id}/aois/{}", id(&aoi)),
        Some(json!({"name": "Marque"})),
    )
    .await;
    c.call(
        Method::POST,
        "/heatmaps/{id}/aois/copy",
        &format!("{heatmap_path}/aois/copy"),
        Some(json!({"from_item_id": item_id})),
    )
    .await;
    c.call(Method::GET, "/heatmaps", "/heatmaps", None).await;

    // An image whose file is gone fails, with its error, and can be retried.
    let gone = app.upload_ok(&user, "gone.png", png(200, 100)).await;
    let row = regard::db::media::find(&app.state.db, &id(&gone))
        .await
        .unwrap()
        .unwrap();
    let key = regard::storage::StorageKey::new(row.preview_key).unwrap();
    app.state.storage.delete(&key).await.unwrap();
    let failing = c
        .call(
            Method::POST,
            "/heatmaps",
            "/heatmaps",
            Some(json!({"name": "Perdue", "media_ids": [gone["id"]]})),
        )
        .await;
    app.drain_jobs().await;
    let failing_path = format!("/heatmaps/{}", id(&failing));
    let failed = c
        .call(Method::GET, "/heatmaps/{id}", &failing_path, None)
        .await;
    assert_eq!(failed["items"][0]["error"]["code"], "source_missing");
    c.call(
        Method::POST,
        "/heatmaps/{id}/items/{item_id}/retry",
        &format!(
            "{failing_path}/items/{}/retry",
            failed["items"][0]["id"].as_str().unwrap()
        ),
        None,
    )
    .await;
    c.call(
        Method::GET,
        "/heatmaps/{id}/benchmarks",
        &format!("{heatmap_path}/benchmarks"),
        None,
    )
    .await;
    c.call(
        Method::GET,
        "/heatmaps/{id}",
        &format!("/heatmaps/{}", queued["heatmap_id"].as_str().unwrap()),
        None,
    )
    .await;
    c.call(
        Method::GET,
        "/media/{id}/heatmap",
        &format!("/media/{}/heatmap", id(&media)),
        None,
    )
    .await;
    let share = c
        .call(
            Method::POST,
            "/heatmaps/{id}/shares",
            &format!("{heatmap_path}/shares"),
            Some(json!({})),
        )
        .await;
    c.call(
        Method::GET,
        "/heatmaps/{id}/shares",
        &format!("{heatmap_path}/shares"),
        None,
    )
    .await;
    c.call(
        Method::GET,
        "/shared/{token}",
        &format!("/shared/{}", share["token"].as_str().unwrap()),
        None,
    )
    .await;
    c.call(Method::GET, "/help", "/help?locale=en", None).await;
    let articles = c.call(Method::GET, "/help", "/help", None).await;
    c.call(
        Method::GET,
        "/help/{slug}",
        &format!("/help/{}", articles["items"][0]["slug"].as_str().unwrap()),
        None,
    )
    .await;
    c.call(
        Method::POST,
        "/assistant/chat",
        "/assistant/chat",
        Some(json!({"messages": [{"role": "user", "content": "Combien de créations ?"}]})),
    )
    .await;

    // Workspaces: one made, renamed, a guest invited (the mail sent again), who accepts and
    // is made editor.
    let workspace = c
        .call(
            Method::POST,
            "/workspaces",
            "/workspaces",
            Some(json!({"name": "Agence"})),
        )
        .await;
    let ws_path = format!("/workspaces/{}", id(&workspace));
    c.call(Method::GET, "/workspaces", "/workspaces", None)
        .await;
    c.call(
        Method::PATCH,
        "/workspaces/{id}",
        &ws_path,
        Some(json!({"name": "Agence Lumière"})),
    )
    .await;
    let guest_email = crate::helpers::unique_email();
    let guest = app.sign_up(&guest_email, "secret1").await;
    let guest_id = crate::helpers::jwt_claims(guest["access_token"].as_str().unwrap())["sub"]
        .as_str()
        .unwrap()
        .to_owned();
    let invitation = c
        .call(
            Method::POST,
            "/workspaces/{id}/invitations",
            &format!("{ws_path}/invitations"),
            Some(json!({"email": guest_email, "role": "viewer"})),
        )
        .await;
    c.call(
        Method::GET,
        "/workspaces/{id}/invitations",
        &format!("{ws_path}/invitations"),
        None,
    )
    .await;
    c.call(
        Method::POST,
        "/workspaces/{id}/invitations/{invitation_id}/resend",
        &format!("{ws_path}/invitations/{}/resend", id(&invitation)),
        None,
    )
    .await;
    let token = crate::workspaces::invitation_token(&app, &guest_email);
    let guest = User {
        token: guest["access_token"].as_str().unwrap().to_owned(),
    };
    let joined = app
        .api(
            Method::POST,
            &format!("/invitations/{token}/accept"),
            &guest,
        )
        .send()
        .await
        .unwrap();
    assert_eq!(joined.status(), 200);
    let joined: Value = joined.json().await.unwrap();
    let schema = &c.doc["paths"]["/invitations/{token}/accept"]["post"]["responses"]["200"]["content"]
        ["application/json"]["schema"];
    conforms(&c.doc, schema, &joined, "POST /invitations/{token}/accept").unwrap();
    c.checked.push("POST /invitations/{token}/accept".into());
    c.call(
        Method::GET,
        "/workspaces/{id}/members",
        &format!("{ws_path}/members"),
        None,
    )
    .await;
    c.call(
        Method::PATCH,
        "/workspaces/{id}/members/{user_id}",
        &format!("{ws_path}/members/{guest_id}"),
        Some(json!({"role": "editor"})),
    )
    .await;

    // Comments, approval and the activity they leave.
    for base in [heatmap_path.clone(), sim_path.clone()] {
        let kind = if base.starts_with("/heatmaps") {
            "heatmaps"
        } else {
            "simulations"
        };
        c.call(
            Method::POST,
            &format!("/{kind}/{{id}}/comments"),
            &format!("{base}/comments"),
            Some(json!({"body": "Validé côté client ?"})),
        )
        .await;
        c.call(
            Method::GET,
            &format!("/{kind}/{{id}}/comments"),
            &format!("{base}/comments"),
            None,
        )
        .await;
        c.call(
            Method::GET,
            &format!("/{kind}/{{id}}/approval"),
            &format!("{base}/approval"),
            None,
        )
        .await;
        c.call(
            Method::PUT,
            &format!("/{kind}/{{id}}/approval"),
            &format!("{base}/approval"),
            Some(json!({"status": "changes_requested"})),
        )
        .await;
    }
    c.call(
        Method::GET,
        "/workspaces/{id}/activity",
        &format!("{ws_path}/activity?limit=5"),
        None,
    )
    .await;

    // The account.
    c.call(Method::GET, "/account/sessions", "/account/sessions", None)
        .await;
    c.call(
        Method::GET,
        "/account/recovery-codes",
        "/account/recovery-codes",
        None,
    )
    .await;
    c.call(
        Method::PUT,
        "/account/branding",
        "/account/branding",
        Some(json!({"agency_name": "Agence", "accent_color": "#123456", "logo_media_id": media["id"]})),
    )
    .await;
    c.call(Method::GET, "/account/branding", "/account/branding", None)
        .await;
    // Renders as a ZIP: not JSON, but its body is probed below.
    let zip = app
        .api_json(
            Method::POST,
            "/simulations/renders.zip",
            &user,
            &json!({"ids": [simulation["id"]]}),
        )
        .await;
    assert_eq!(zip.status(), 200);
    assert_eq!(zip.headers()["content-type"], "application/zip");
    c.paths.insert(
        "POST /simulations/renders.zip".into(),
        "/simulations/renders.zip".into(),
    );

    // Every documented field of every JSON body is one the handler reads: sent with a value of
    // no valid type, it is refused for its value, never as an `unknown_field`.
    let mut probed = 0;
    for (template, item) in c.doc["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            let schema = &operation["requestBody"]["content"]["application/json"]["schema"];
            if schema.is_null() {
                continue;
            }
            let name = schema["$ref"].as_str().unwrap().trim_start_matches('#');
            let properties = c.doc.pointer(name).unwrap()["properties"]
                .as_object()
                .unwrap()
                .clone();
            let operation_name = format!("{} {template}", method.to_uppercase());
            let path = c
                .paths
                .get(&operation_name)
                .unwrap_or_else(|| panic!("{operation_name} was called"));
            let body: serde_json::Map<String, Value> = properties
                .keys()
                .map(|key| (key.clone(), json!({"__probe": true})))
                .collect();
            let response = app
                .api(method.to_uppercase().parse().unwrap(), path, &user)
                .json(&body)
                .send()
                .await
                .unwrap();
            assert_eq!(response.status(), 422, "{operation_name}");
            let answer: Value = response.json().await.unwrap();
            for key in properties.keys() {
                assert_ne!(
                    answer["details"]["fields"][key], "unknown_field",
                    "{operation_name}: {key} is documented but not read"
                );
            }
            probed += 1;
        }
    }
    assert!(probed >= 10, "{probed} bodies probed");

    // Recovery codes need two-step verification, which would hold every call above at the
    // door: a second user has it.
    let secured = app.with_totp(&app.new_user().await).await;
    let codes = app
        .api(Method::POST, "/account/recovery-codes", &secured)
        .send()
        .await
        .unwrap();
    assert_eq!(codes.status(), 201);
    let codes: Value = codes.json().await.unwrap();
    let schema = &c.doc["paths"]["/account/recovery-codes"]["post"]["responses"]["201"]["content"]
        ["application/json"]["schema"];
    conforms(&c.doc, schema, &codes, "POST /account/recovery-codes").unwrap();
    c.checked.push("POST /account/recovery-codes".into());

    // Every JSON operation of the document was checked above.
    let mut json_operations: Vec<String> = Vec::new();
    for (template, item) in c.doc["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            let json = operation["responses"]
                .as_object()
                .unwrap()
                .iter()
                .any(|(status, r)| {
                    status.starts_with('2') && !r["content"]["application/json"].is_null()
                });
            if json && template != "/openapi.json" {
                json_operations.push(format!("{} {template}", method.to_uppercase()));
            }
        }
    }
    let missing: Vec<&String> = json_operations
        .iter()
        .filter(|op| !c.checked.contains(op))
        .collect();
    assert!(missing.is_empty(), "not checked: {missing:?}");
}

#[test]
fn the_conformance_check_catches_each_kind_of_drift() {
    let doc = regard::http::api::openapi();
    let schema = json!({"$ref": "#/components/schemas/Facets"});
    let good = json!({"brands": [{"name": "A", "count": 2}], "campaigns": []});
    assert!(conforms(&doc, &schema, &good, "facets").is_ok());
    for bad in [
        json!({"brands": []}),
        json!({"brands": [], "campaigns": [], "extra": 1}),
        json!({"brands": [{"name": "A", "count": "2"}], "campaigns": []}),
        json!({"brands": [{"name": null, "count": 2}], "campaigns": []}),
    ] {
        assert!(conforms(&doc, &schema, &bad, "facets").is_err(), "{bad}");
    }
    let status = json!({"$ref": "#/components/schemas/SimulationStatus"});
    assert!(conforms(&doc, &status, &json!("done"), "status").is_ok());
    assert!(conforms(&doc, &status, &json!("finished"), "status").is_err());
}
