//! Health, metrics, the OpenAPI document, security headers and serving the web app.

use std::time::{Duration, Instant};

use reqwest::{Method, StatusCode};
use serde_json::Value;
use signaldesk_store::test_support::TestDatabase;

use crate::helpers::{parse_metrics, TestApp};
use crate::live::LiveClient;

#[tokio::test]
async fn healthz_answers_ok_without_auth() {
    let app = TestApp::spawn().await;
    let res = reqwest::get(app.url("/healthz")).await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(
        res.json::<Value>().await.unwrap(),
        serde_json::json!({"status": "ok"})
    );
}

#[tokio::test]
async fn metrics_are_prometheus_text_with_the_instance_label() {
    let app = TestApp::spawn_with(TestDatabase::sqlite(), |config| {
        config.instance_id = "host-a-42".into();
    })
    .await;
    reqwest::get(app.url("/api/nope/")).await.unwrap();
    let res = reqwest::get(app.url("/metrics")).await.unwrap();
    assert!(res.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/plain"));
    let text = res.text().await.unwrap();
    assert!(text.contains("# TYPE signaldesk_http_responses_total counter"));
    assert!(text.contains("# TYPE signaldesk_http_request_duration_seconds histogram"));
    let samples = parse_metrics(&text);
    for sample in &samples {
        assert_eq!(sample.label("instance"), Some("host-a-42"), "{sample:?}");
    }
    let names: Vec<&str> = samples.iter().map(|s| s.name.as_str()).collect();
    for name in [
        "signaldesk_http_responses_total",
        "signaldesk_http_request_duration_seconds_bucket",
        "signaldesk_websocket_clients",
        "signaldesk_websocket_dropped_slow_total",
        "signaldesk_store_up",
        "signaldesk_workers_running",
        "signaldesk_users",
        "signaldesk_lease_renewals_total",
        "signaldesk_events_relayed_total",
    ] {
        assert!(names.contains(&name), "{name} missing from:\n{text}");
    }
    let four_xx = app
        .metric("signaldesk_http_responses_total", &[("class", "4xx")])
        .await;
    assert!(four_xx >= Some(1.0), "{four_xx:?}");
}

/// The latency histogram is labelled by the route template, never by the path: ids and
/// webhook secrets stay out, and unknown paths share one label value.
#[tokio::test]
async fn latency_is_labelled_by_route_template() {
    let app = TestApp::spawn().await;
    for id in [17, 18] {
        let res = reqwest::get(app.url(&format!("/api/bot-settings/{id}/")))
            .await
            .unwrap();
        assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
    }
    let secret = "s3cr3t-in-the-path";
    reqwest::Client::new()
        .post(app.url(&format!("/api/webhook/{secret}/")))
        .body("{}")
        .send()
        .await
        .unwrap();
    for n in 0..5 {
        let res = reqwest::get(app.url(&format!("/api/random-{n}/")))
            .await
            .unwrap();
        assert_eq!(res.status(), StatusCode::NOT_FOUND);
    }
    let samples = app.metrics().await;
    let count = |route: &str| {
        samples
            .iter()
            .find(|s| {
                s.name == "signaldesk_http_request_duration_seconds_count"
                    && s.label("route") == Some(route)
                    && s.label("method") == Some("GET")
                    && s.label("class") == Some("4xx")
            })
            .map(|s| s.value)
    };
    assert_eq!(count("/api/bot-settings/{id}/"), Some(2.0));
    assert_eq!(count("unmatched"), Some(5.0));
    let routes: Vec<&str> = samples
        .iter()
        .filter(|s| {
            s.name
                .starts_with("signaldesk_http_request_duration_seconds")
        })
        .filter_map(|s| s.label("route"))
        .collect();
    assert!(routes.contains(&"/api/webhook/{secret}/"), "{routes:?}");
    for route in routes {
        assert!(
            !route.contains("17") && !route.contains("random") && !route.contains(secret),
            "a path became a label: {route}"
        );
    }
}

#[tokio::test]
async fn websocket_clients_are_counted_while_connected() {
    let app = TestApp::spawn().await;
    let token = app.user_with_token("alice").await;
    let clients = || app.metric("signaldesk_websocket_clients", &[]);
    assert_eq!(clients().await, Some(0.0));
    let (client, _) = LiveClient::authenticated(&app, &token).await;
    assert_eq!(clients().await, Some(1.0));
    drop(client);
    let deadline = Instant::now() + Duration::from_secs(10);
    while clients().await != Some(0.0) {
        assert!(
            Instant::now() < deadline,
            "the closed socket is still counted"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// `signaldesk_bot_owned` follows the supervisor's start and stop of the user's workers.
#[tokio::test]
async fn bot_owned_follows_the_users_workers() {
    let app = TestApp::spawn().await;
    let token = app.user_with_token("alice").await;
    let user_id = app
        .store()
        .user_by_username("alice")
        .await
        .unwrap()
        .unwrap()
        .id
        .to_string();
    let labels = [("user_id", user_id.as_str())];
    let owned = || app.metric("signaldesk_bot_owned", &labels);
    assert_eq!(owned().await, None);
    for (path, expected) in [
        ("/api/command/signals/start/", 1.0),
        ("/api/command/signals/stop/", 0.0),
    ] {
        app.call_ok(Method::POST, path, &token, None, StatusCode::OK)
            .await;
        assert_eq!(owned().await, Some(expected), "after {path}");
    }
    assert_eq!(
        app.metric("signaldesk_workers_running", &[("kind", "signals")])
            .await,
        Some(0.0)
    );
}

#[tokio::test]
async fn openapi_lists_every_api_route() {
    let app = TestApp::spawn().await;
    let doc: Value = reqwest::get(app.url("/api/openapi.json"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(doc["openapi"].as_str().unwrap().starts_with("3."));
    // The webhook's body schema lives in core (its `openapi` feature) since the parser moved.
    let alert = &doc["components"]["schemas"]["AlertBody"]["properties"];
    for field in ["symbol", "signal", "recommendation"] {
        assert!(alert[field].is_object(), "AlertBody.{field}: {alert}");
    }
    let paths = doc["paths"].as_object().unwrap();
    let expected = [
        ("/api/auth/login/", "post"),
        ("/api/auth/register/", "post"),
        ("/api/auth/logout/", "post"),
        ("/api/auth/me/", "get"),
        ("/api/auth/check/", "get"),
        ("/api/auth/token/", "post"),
        ("/api/auth/password/", "post"),
        ("/api/auth/2fa/setup/", "post"),
        ("/api/auth/2fa/enable/", "post"),
        ("/api/auth/2fa/disable/", "post"),
        ("/api/auth/sessions/", "get"),
        ("/api/auth/sessions/{id}/", "delete"),
        ("/api/auth/sessions/revoke-others/", "post"),
        ("/api/openapi.json", "get"),
    ];
    for (path, method) in expected {
        assert!(
            paths[path][method].is_object(),
            "{method} {path} missing from the document"
        );
    }
    // And each documented route is really served (not the fallback's 404).
    for (path, ops) in paths {
        for method in ops.as_object().unwrap().keys() {
            let res = reqwest::Client::new()
                .request(method.to_uppercase().parse().unwrap(), app.url(path))
                .send()
                .await
                .unwrap();
            let status = res.status();
            let body = res.text().await.unwrap();
            assert!(
                !(status == StatusCode::NOT_FOUND && body.contains("\"Not found.\"")),
                "{method} {path}: {body}"
            );
        }
    }
}

#[tokio::test]
async fn every_response_carries_security_headers() {
    let app = TestApp::spawn().await;
    for path in ["/healthz", "/api/nope/", "/api/auth/me/"] {
        let res = reqwest::get(app.url(path)).await.unwrap();
        let h = res.headers();
        let csp = h["content-security-policy"].to_str().unwrap();
        assert!(csp.contains("frame-ancestors 'none'"), "{path}");
        assert!(csp.contains("default-src 'self'"));
        assert_eq!(h["x-content-type-options"], "nosniff");
    }
}

#[tokio::test]
async fn web_app_serves_client_routes_but_never_under_api_or_ws() {
    let dist = tempfile::tempdir().unwrap();
    std::fs::write(
        dist.path().join("index.html"),
        "<!doctype html><div id=root>app</div>",
    )
    .unwrap();
    std::fs::create_dir(dist.path().join("assets")).unwrap();
    std::fs::write(dist.path().join("assets/app-1234.js"), "console.info(1)").unwrap();
    let static_dir = dist.path().to_path_buf();
    let app =
        TestApp::spawn_with(TestDatabase::sqlite(), |c| c.static_dir = Some(static_dir)).await;

    for route in ["/", "/login", "/dashboard", "/stats", "/some/unknown/page"] {
        let res = reqwest::get(app.url(route)).await.unwrap();
        assert_eq!(res.status(), StatusCode::OK, "{route}");
        assert!(res.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/html"));
        assert!(res.text().await.unwrap().contains("id=root"));
    }
    let js = reqwest::get(app.url("/assets/app-1234.js")).await.unwrap();
    assert_eq!(js.status(), StatusCode::OK);
    assert!(js.headers()["content-type"]
        .to_str()
        .unwrap()
        .contains("javascript"));
    assert!(js.headers()["cache-control"]
        .to_str()
        .unwrap()
        .contains("immutable"));

    let missing = reqwest::get(app.url("/assets/missing.js")).await.unwrap();
    assert_eq!(missing.status(), StatusCode::NOT_FOUND);
    let traversal = reqwest::get(app.url("/..%2F..%2Fetc%2Fpasswd"))
        .await
        .unwrap();
    assert!(!traversal.text().await.unwrap().contains("root:"));
    for path in ["/api/dashboard-that-does-not-exist/", "/ws/nothing/"] {
        let res = reqwest::get(app.url(path)).await.unwrap();
        assert_eq!(res.status(), StatusCode::NOT_FOUND);
        assert!(res.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("application/json"));
    }
}

/// web/openapi.json is the contract the web app's types are generated from; it must be what
/// the server serves (`make openapi` rewrites it).
#[tokio::test]
async fn the_committed_openapi_document_is_the_served_one() {
    let app = TestApp::spawn().await;
    let served: Value = reqwest::get(app.url("/api/openapi.json"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../web/openapi.json");
    let committed: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert!(
        served == committed,
        "web/openapi.json is stale: run `make openapi` and commit it"
    );
}

/// Issue 16 point 1: the document a validator, a client generator and a fuzzer can use. Query
/// parameters were declared in the path, operation ids repeated, there was no security scheme,
/// 415 was undocumented and five bodies were bare objects.
#[test]
fn the_openapi_document_describes_every_route_completely() {
    let doc = signaldesk_server::router::document();
    assert_eq!(doc["openapi"], "3.1.0");
    let schemes = &doc["components"]["securitySchemes"];
    assert_eq!(schemes["token"]["in"], "header");
    assert_eq!(schemes["session"]["in"], "cookie");
    let mut ids = std::collections::HashSet::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            let here = format!("{method} {path}");
            let id = op["operationId"].as_str().unwrap();
            let tag = op["tags"][0].as_str().unwrap().replace('-', "_");
            assert!(id.starts_with(&format!("{tag}_")), "{here}: {id}");
            assert!(ids.insert(id.to_string()), "{here}: {id} repeats");
            for p in op["parameters"].as_array().into_iter().flatten() {
                let name = p["name"].as_str().unwrap();
                let in_template = path.contains(&format!("{{{name}}}"));
                let expected = if in_template { "path" } else { "query" };
                assert_eq!(p["in"], expected, "{here}: parameter {name}");
            }
            let responses = op["responses"].as_object().unwrap();
            let secured = op["security"].as_array().is_some_and(|s| !s.is_empty());
            let mut must: Vec<&str> = Vec::new();
            if path != "/api/openapi.json" {
                must.push("503");
            }
            if secured {
                must.push("401");
            }
            if let Some(body) = op.get("requestBody") {
                must.extend(["400", "413", "415"]);
                let schema = &body["content"]["application/json"]["schema"];
                let name = schema["$ref"].as_str().unwrap_or_default();
                let name = name.trim_start_matches("#/components/schemas/");
                let target = &doc["components"]["schemas"][name];
                assert!(
                    target["properties"].is_object() || target["allOf"].is_array(),
                    "{here}: the body {name} has no properties"
                );
            }
            for status in must {
                assert!(responses.contains_key(status), "{here} lacks {status}");
            }
            for (status, response) in responses {
                let schema = &response["content"]["application/json"]["schema"];
                if status.starts_with('4') || status.starts_with('5') {
                    assert_eq!(
                        schema["$ref"], "#/components/schemas/ErrorBody",
                        "{here} {status}"
                    );
                } else if status != "204" {
                    let bare = schema["type"] == "object" && schema.get("properties").is_none();
                    assert!(!bare, "{here} {status} answers a bare object");
                }
            }
        }
    }
    let settings = &doc["components"]["schemas"]["BotSettings"]["properties"];
    assert_eq!(settings["martingale_max_depth"]["maximum"], 20);
    assert_eq!(settings["initial_stop_loss_pct"]["exclusiveMaximum"], 100.0);
    assert_eq!(settings["forbidden_hours"]["maxItems"], 24);
}
