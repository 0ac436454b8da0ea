//! `POST /api/v1/assistant/chat` and `/api/v1/help` (docs/assistant.md): the JSON form and the
//! event stream, owner scoping (another user's data never shows), validation (422), the
//! per-user rate limit, the question set's score over the demo account, and the optional LLM
//! endpoint against a fake OpenAI-compatible server started here (tools run, failures fall
//! back to the offline engine).

use std::sync::{Arc, Mutex};

use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::routing::post;
use regard::assistant::{eval, fixture};
use reqwest::Method;
use serde_json::{Value, json};

use crate::helpers::{
    TestApp, User, assert_api_error, assert_fields, spawn_app, spawn_app_with, unique_email,
};

/// A server without job workers: seeded heatmap jobs must stay as they are.
async fn spawn() -> TestApp {
    spawn_app().await
}

/// A new user and their id.
async fn user_with_id(app: &TestApp) -> (User, String) {
    let session = app.sign_up(&unique_email(), "secret1").await;
    (
        User {
            token: session["access_token"].as_str().unwrap().to_owned(),
        },
        session["user"]["id"].as_str().unwrap().to_owned(),
    )
}

fn question(text: &str, locale: &str) -> Value {
    json!({"messages": [{"role": "user", "content": text}], "locale": locale, "path": "/creatives"})
}

async fn ask(app: &TestApp, user: &User, body: &Value) -> Value {
    let response = app
        .api_json(Method::POST, "/assistant/chat", user, body)
        .await;
    let status = response.status();
    let reply: Value = response.json().await.unwrap();
    assert_eq!(status, 200, "{reply}");
    reply
}

async fn location(app: &TestApp, user: &User, name: &str, city: &str) -> String {
    let response = app
        .api_json(
            Method::POST,
            "/locations",
            user,
            &json!({"name": name, "city": city}),
        )
        .await;
    assert_eq!(response.status(), 201);
    let body: Value = response.json().await.unwrap();
    body["id"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn the_json_answer_has_exactly_answer_links_and_intent() {
    let app = spawn().await;
    let (user, _) = user_with_id(&app).await;
    location(&app, &user, "Part-Dieu", "Lyon").await;
    let reply = ask(
        &app,
        &user,
        &question("Combien d'emplacements à Lyon ?", "fr"),
    )
    .await;
    let keys: Vec<&String> = reply.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["answer", "intent", "links"], "{reply}");
    assert_eq!(reply["intent"], "count");
    assert!(
        reply["answer"].as_str().unwrap().contains("1 emplacement"),
        "{reply}"
    );
    for link in reply["links"].as_array().unwrap() {
        let keys: Vec<&String> = link.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["href", "label"]);
        assert!(link["href"].as_str().unwrap().starts_with('/'), "{link}");
    }
    // A how-to question in English, answered from the articles with a link to one.
    let reply = ask(
        &app,
        &user,
        &question("How do I make a night render?", "en"),
    )
    .await;
    assert_eq!(reply["intent"], "help");
    assert!(
        reply["answer"].as_str().unwrap().contains("Night"),
        "{reply}"
    );
    assert_eq!(reply["links"][0]["href"], "/help/night-renders");
}

#[tokio::test]
async fn a_question_of_two_parts_gets_both_answers_in_one_reply() {
    let app = spawn().await;
    let (user, _) = user_with_id(&app).await;
    let bastille = location(&app, &user, "Bastille", "Paris").await;
    location(&app, &user, "Part-Dieu", "Lyon").await;
    let reply = ask(
        &app,
        &user,
        &question(
            "Combien ai-je d'emplacements et lesquels sont à Paris ?",
            "fr",
        ),
    )
    .await;
    let keys: Vec<&String> = reply.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["answer", "intent", "links"], "{reply}");
    // The first part's intent; both parts' answers and links.
    assert_eq!(reply["intent"], "count");
    let answer = reply["answer"].as_str().unwrap();
    let (count, list) = answer.split_once("\n\n").expect("two answers");
    assert!(count.contains("2 emplacements"), "{reply}");
    assert!(
        list.contains("Paris") && list.contains("Bastille") && !list.contains("Part-Dieu"),
        "{reply}"
    );
    let hrefs: Vec<&str> = reply["links"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["href"].as_str().unwrap())
        .collect();
    assert!(
        hrefs.contains(&format!("/locations/{bastille}").as_str()),
        "{reply}"
    );
    assert!(hrefs.contains(&"/locations?q=Paris"), "{reply}");
    // "Compare two heatmaps" names nothing to compare: it asks how, and the article answers.
    let reply = ask(&app, &user, &question("compare two heatmaps", "en")).await;
    assert_eq!(reply["intent"], "help", "{reply}");
    assert_eq!(reply["links"][0]["href"], "/help/compare", "{reply}");
}

#[tokio::test]
async fn a_question_never_reveals_another_users_data() {
    let app = spawn().await;
    let (alice, _) = user_with_id(&app).await;
    let (bob, _) = user_with_id(&app).await;
    let alice_lyon = location(&app, &alice, "Bellecour", "Lyon").await;
    for name in ["Zeta Secret", "Omega Hidden", "Sigma Private"] {
        location(&app, &bob, name, "Lyon").await;
    }
    let bob_creative = app
        .creative(&bob, json!({"name": "Bob Confidential", "brand": "Moka"}))
        .await;

    let reply = ask(
        &app,
        &alice,
        &question("Combien d'emplacements à Lyon ?", "fr"),
    )
    .await;
    let text = reply.to_string();
    assert!(
        reply["answer"]
            .as_str()
            .unwrap()
            .contains("1 emplacement à Lyon"),
        "{reply}"
    );
    assert!(text.contains(&alice_lyon));
    for secret in ["Zeta", "Omega", "Sigma"] {
        assert!(!text.contains(secret), "{reply}");
    }

    // Names, brands and ids of others are unknown: no list, no link, no details.
    for q in [
        "list my creatives for the brand Moka",
        "Open Bob Confidential",
        "Tell me about Zeta Secret",
        "compare Zeta Secret and Bellecour",
        "which creative scored best?",
        "what did I create last?",
    ] {
        let reply = ask(&app, &alice, &question(q, "en")).await;
        let text = reply.to_string();
        assert!(!text.contains("Bob Confidential"), "{q}: {reply}");
        assert!(!text.contains("Zeta"), "{q}: {reply}");
        assert!(
            !text.contains(bob_creative["id"].as_str().unwrap()),
            "{q}: {reply}"
        );
    }
    // Bob sees his own.
    let reply = ask(&app, &bob, &question("how many locations in Lyon?", "en")).await;
    assert!(
        reply["answer"]
            .as_str()
            .unwrap()
            .contains("3 locations in Lyon"),
        "{reply}"
    );
}

/// The events of a finished event-stream body: `(event, data)` pairs.
fn events(body: &str) -> Vec<(String, String)> {
    body.split("\n\n")
        .filter(|block| !block.trim().is_empty())
        .map(|block| {
            let mut event = String::from("message");
            let mut data = Vec::new();
            for line in block.lines() {
                if let Some(v) = line.strip_prefix("event:") {
                    event = v.trim().to_owned();
                } else if let Some(v) = line.strip_prefix("data:") {
                    data.push(v.strip_prefix(' ').unwrap_or(v).to_owned());
                }
            }
            (event, data.join("\n"))
        })
        .collect()
}

#[tokio::test]
async fn the_answer_streams_as_sentences_then_a_final_event() {
    let app = spawn().await;
    let (user, _) = user_with_id(&app).await;
    let body = question("Comment créer une heatmap ?", "fr");
    let response = app
        .api(Method::POST, "/assistant/chat", &user)
        .header("Accept", "text/event-stream")
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let content_type = response.headers()["content-type"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(
        content_type.starts_with("text/event-stream"),
        "{content_type}"
    );
    let events = events(&response.text().await.unwrap());
    let (last, deltas) = events.split_last().unwrap();
    assert_eq!(last.0, "done");
    assert!(deltas.len() >= 2, "{events:?}");
    assert!(deltas.iter().all(|(name, _)| name == "delta"));
    let streamed: String = deltas
        .iter()
        .map(|(_, data)| {
            serde_json::from_str::<Value>(data).unwrap()["text"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    let done: Value = serde_json::from_str(&last.1).unwrap();
    assert_eq!(streamed, done["answer"].as_str().unwrap());
    assert_eq!(done["intent"], "help");
    // The same answer as the JSON form.
    assert_eq!(ask(&app, &user, &body).await, done);
}

#[tokio::test]
async fn bad_questions_answer_422_with_a_field_code() {
    let app = spawn().await;
    let (user, _) = user_with_id(&app).await;
    let send = |body: Value| {
        let app = &app;
        let user = &user;
        async move {
            app.api_json(Method::POST, "/assistant/chat", user, &body)
                .await
        }
    };
    let long = "a".repeat(2001);
    assert_fields(
        send(question(&long, "fr")).await,
        json!({"messages.0.content": "too_long"}),
    )
    .await;
    // 2,000 characters (not bytes) are fine.
    let at_limit = "é".repeat(2000);
    assert_eq!(send(question(&at_limit, "fr")).await.status(), 200);
    assert_fields(
        send(json!({"locale": "fr"})).await,
        json!({"messages": "required"}),
    )
    .await;
    assert_fields(
        send(json!({"messages": [{"role": "robot", "content": "hi"}, {"role": "user", "content": "  "}]})).await,
        json!({"messages.0.role": "invalid_value", "messages.1.content": "required"}),
    )
    .await;
    assert_fields(
        send(json!({"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]})).await,
        json!({"messages": "invalid_value"}),
    )
    .await;
    assert_fields(
        send(json!({"messages": [{"role": "user", "content": "hi"}], "locale": "de", "path": "creatives", "extra": 1})).await,
        json!({"locale": "invalid_value", "path": "invalid_value", "extra": "unknown_field"}),
    )
    .await;
    let response = app
        .client
        .post(app.url("/api/v1/assistant/chat"))
        .json(&question("hi", "fr"))
        .send()
        .await
        .unwrap();
    assert_api_error(response, 401, "unauthorized").await;
}

#[tokio::test]
async fn each_user_has_a_rate_limit() {
    let app = spawn_app_with(|config| {
        config.rate_limit_assistant = 2;
        config.rate_limit_window = 3600;
    })
    .await;
    let (alice, _) = user_with_id(&app).await;
    let (bob, _) = user_with_id(&app).await;
    for _ in 0..2 {
        ask(&app, &alice, &question("bonjour", "fr")).await;
    }
    let response = app
        .api_json(
            Method::POST,
            "/assistant/chat",
            &alice,
            &question("bonjour", "fr"),
        )
        .await;
    assert!(crate::helpers::retry_after(&response) <= app.state.config.rate_limit_window);
    assert_api_error(response, 429, "rate_limited").await;
    // Others are not affected.
    ask(&app, &bob, &question("bonjour", "fr")).await;
}

#[tokio::test]
async fn help_articles_are_listed_and_rendered_in_both_languages() {
    let app = spawn().await;
    let (user, _) = user_with_id(&app).await;
    let list: Value = app
        .api_send(Method::GET, "/help?locale=en", &user)
        .await
        .json()
        .await
        .unwrap();
    let slugs: Vec<&str> = list["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["slug"].as_str().unwrap())
        .collect();
    for slug in [
        "sign-in",
        "account-security",
        "creatives",
        "locations",
        "simulations",
        "render-adjustments",
        "heatmaps",
        "scores",
        "areas-of-interest",
        "compare",
        "benchmarks",
        "night-renders",
        "exporting",
        "reports",
        "sharing",
        "privacy",
    ] {
        assert!(slugs.contains(&slug), "{slug} missing from {slugs:?}");
    }
    let fr: Value = app
        .api_send(Method::GET, "/help/scores", &user)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(fr["locale"], "fr");
    assert!(
        fr["html"]
            .as_str()
            .unwrap()
            .contains("<h2>Concentration (0–100)</h2>"),
        "{fr}"
    );
    let en: Value = app
        .api_send(Method::GET, "/help/scores?locale=en", &user)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(en["title"], "What the scores and metrics mean");
    assert_api_error(
        app.api_send(Method::GET, "/help/nope", &user).await,
        404,
        "not_found",
    )
    .await;
    assert_fields(
        app.api_send(Method::GET, "/help?locale=xx", &user).await,
        json!({"locale": "invalid_value"}),
    )
    .await;
}

#[tokio::test]
async fn the_question_set_scores_at_least_90_percent_on_the_demo_account() {
    let app = spawn().await;
    let (_, owner) = user_with_id(&app).await;
    fixture::seed_demo(&app.state.db, &owner).await.unwrap();
    let cases = eval::parse(eval::QUESTIONS).unwrap();
    assert!(cases.len() >= 80);
    let fr = cases.iter().filter(|c| c.locale == "fr").count();
    assert_eq!(fr * 2, cases.len(), "half French, half English");
    let report = eval::run(&app.state.db, &owner, &cases).await.unwrap();
    let (per, (passed, total)) = report.scores();
    let failures: Vec<String> = report
        .outcomes
        .iter()
        .filter(|o| !o.problems.is_empty())
        .map(|o| {
            format!(
                "{} → {} [{}]",
                o.case.question,
                o.reply.answer,
                o.problems.join("; ")
            )
        })
        .collect();
    assert!(
        passed * 10 >= total * 9,
        "{passed}/{total} ({per:?}); failures:\n{}",
        failures.join("\n")
    );
}

/// What the fake model server saw and will answer.
#[derive(Default)]
struct FakeModel {
    requests: Vec<(Option<String>, Value)>,
    fail: bool,
}

/// A fake OpenAI-compatible `/v1/chat/completions`: the first turn calls `list_items` for
/// locations in Lyon; the next answers with the names the tool returned.
async fn completions(
    State(model): State<Arc<Mutex<FakeModel>>>,
    headers: HeaderMap,
    Json(body): Json<Value>,
) -> Result<Json<Value>, StatusCode> {
    let mut model = model.lock().unwrap();
    let auth = headers
        .get("authorization")
        .map(|v| v.to_str().unwrap().to_owned());
    model.requests.push((auth, body.clone()));
    if model.fail {
        return Err(StatusCode::INTERNAL_SERVER_ERROR);
    }
    let messages = body["messages"].as_array().unwrap();
    let tool_result = messages.iter().rev().find(|m| m["role"] == "tool");
    let answer = match tool_result {
        None => json!({"role": "assistant", "content": null, "tool_calls": [{
            "id": "call_1", "type": "function",
            "function": {"name": "list_items", "arguments": "{\"kind\":\"location\",\"city\":\"Lyon\"}"}}]}),
        Some(tool) => {
            let result: Value = serde_json::from_str(tool["content"].as_str().unwrap()).unwrap();
            let names: Vec<String> = result["items"]
                .as_array()
                .unwrap()
                .iter()
                .map(|i| i["name"].as_str().unwrap().to_owned())
                .collect();
            json!({"role": "assistant", "content": format!("You have {} locations in Lyon: {}.", result["count"], names.join(", "))})
        }
    };
    Ok(Json(
        json!({"choices": [{"index": 0, "message": answer, "finish_reason": "stop"}]}),
    ))
}

#[tokio::test]
async fn an_llm_endpoint_answers_with_owner_scoped_tools_and_falls_back_when_it_fails() {
    let model = Arc::new(Mutex::new(FakeModel::default()));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let router = axum::Router::new()
        .route("/v1/chat/completions", post(completions))
        .with_state(Arc::clone(&model));
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });

    let app = spawn_app_with(|config| {
        config.assistant_url = Some(format!("http://{address}/v1"));
        config.assistant_model = Some("fake-model".to_owned());
        config.assistant_api_key = Some(regard::config::Secret::new("test-key"));
    })
    .await;
    let (alice, _) = user_with_id(&app).await;
    let (bob, _) = user_with_id(&app).await;
    let bellecour = location(&app, &alice, "Bellecour", "Lyon").await;
    location(&app, &alice, "Opéra", "Paris").await;
    location(&app, &bob, "Bob Secret Site", "Lyon").await;

    let reply = ask(
        &app,
        &alice,
        &question("How many locations do I have in Lyon?", "en"),
    )
    .await;
    assert_eq!(
        reply["answer"], "You have 1 locations in Lyon: Bellecour.",
        "the model's own words: {reply}"
    );
    assert_eq!(reply["intent"], "list");
    assert_eq!(
        reply["links"],
        json!([{"label": "Bellecour", "href": format!("/locations/{bellecour}")}])
    );
    {
        let model = model.lock().unwrap();
        assert_eq!(model.requests.len(), 2, "a tool call, then the answer");
        let (auth, first) = &model.requests[0];
        assert_eq!(auth.as_deref(), Some("Bearer test-key"));
        assert_eq!(first["model"], "fake-model");
        let tools: Vec<&str> = first["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["function"]["name"].as_str().unwrap())
            .collect();
        assert_eq!(
            tools,
            ["search_help", "list_items", "rank_items", "get_item"]
        );
        // Help sections are in the system message; the question is the last message.
        let messages = first["messages"].as_array().unwrap();
        assert_eq!(messages[0]["role"], "system");
        assert_eq!(
            messages.last().unwrap()["content"],
            "How many locations do I have in Lyon?"
        );
        // The tool ran for Alice only.
        let all = serde_json::to_string(&model.requests).unwrap();
        assert!(
            !all.contains("Bob Secret Site"),
            "another user's data reached the model"
        );
    }

    // The endpoint fails: the offline engine answers, and says so.
    model.lock().unwrap().fail = true;
    let reply = ask(
        &app,
        &alice,
        &question("How many locations do I have in Lyon?", "en"),
    )
    .await;
    let answer = reply["answer"].as_str().unwrap();
    assert!(
        answer.starts_with("(The language model did not answer"),
        "{answer}"
    );
    assert!(answer.contains("1 location in Lyon"), "{answer}");
    assert_eq!(reply["intent"], "count");
}
