//! Health, metrics, the OpenAPI document, security headers and serving the web app.

use reqwest::StatusCode;
use serde_json::Value;
use signaldesk_store::test_support::TestDatabase;

use crate::helpers::TestApp;

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
async fn metrics_are_prometheus_text_and_count_requests() {
    let app = TestApp::spawn().await;
    reqwest::get(app.url("/api/nope/")).await.unwrap();
    let text = reqwest::get(app.url("/metrics"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(text.contains("# TYPE signaldesk_http_responses_total counter"));
    let four_xx = text
        .lines()
        .find(|l| l.starts_with("signaldesk_http_responses_total{class=\"4xx\"}"))
        .unwrap();
    let count: u64 = four_xx.rsplit(' ').next().unwrap().parse().unwrap();
    assert!(count >= 1);
    assert!(text.contains("signaldesk_websocket_clients"));
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
