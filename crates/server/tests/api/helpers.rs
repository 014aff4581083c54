use reqwest::{Client, Method, Response, StatusCode};
use serde_json::Value;
use signaldesk_server::auth::password;
use signaldesk_server::{start, Config, RunningServer};
use signaldesk_store::test_support::TestDatabase;
use signaldesk_store::Store;
use std::sync::Arc;

pub const PASSWORD: &str = "correct-horse-battery";

/// A TradingView alert body that is new every time: `time` is now (Unix ms) and `id` a
/// counter, so the webhook never takes an alert a test means as new for a copy of an earlier
/// one (the same body within `webhook_duplicate_window_secs` is acted on once).
pub fn alert_body(symbol: &str, signal: &str) -> Value {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT_ID: AtomicU64 = AtomicU64::new(1);
    serde_json::json!({
        "symbol": symbol,
        "signal": signal,
        "time": chrono::Utc::now().timestamp_millis(),
        "id": NEXT_ID.fetch_add(1, Ordering::Relaxed),
    })
}

/// One running server with its own database, and a cookie-keeping client.
pub struct TestApp {
    pub base: String,
    pub client: Client,
    pub server: RunningServer,
    pub config: Config,
    pub data_dir: tempfile::TempDir,
    /// Shared by the [`TestApp::sibling`] instances on the same database.
    db: Arc<TestDatabase>,
}

impl TestApp {
    pub async fn spawn() -> TestApp {
        TestApp::spawn_with(TestDatabase::sqlite(), |_| {}).await
    }

    /// One server on SQLite, and one on PostgreSQL when `TEST_DATABASE_URL` is set.
    pub async fn on_every_backend() -> Vec<TestApp> {
        TestApp::on_every_backend_with(|_| {}).await
    }

    /// [`TestApp::on_every_backend`], each configured by `configure`.
    pub async fn on_every_backend_with(configure: fn(&mut Config)) -> Vec<TestApp> {
        let mut apps = vec![TestApp::spawn_with(TestDatabase::sqlite(), configure).await];
        if let Some(db) = TestDatabase::postgres().await {
            apps.push(TestApp::spawn_with(db, configure).await);
        }
        apps
    }

    pub async fn spawn_with(db: TestDatabase, configure: impl FnOnce(&mut Config)) -> TestApp {
        let data_dir = tempfile::tempdir().unwrap();
        let mut config = Config {
            addr: "127.0.0.1:0".parse().unwrap(),
            database_url: db.url.clone(),
            data_dir: data_dir.path().to_path_buf(),
            ..Config::default()
        };
        // A small simulated market keeps each server's start-up quick.
        config.market.symbols = vec!["BTCUSDT".into(), "ETHUSDT".into()];
        config.market.interval_minutes = 1;
        configure(&mut config);
        TestApp::launch(Arc::new(db), config, data_dir).await
    }

    /// Another server instance on this one's database, with the same config and master key
    /// and a data dir of its own, as a second `signaldesk serve` behind a load balancer.
    pub async fn sibling(&self) -> TestApp {
        let data_dir = tempfile::tempdir().unwrap();
        let key = signaldesk_store::crypto::KEY_FILE;
        std::fs::copy(self.data_dir.path().join(key), data_dir.path().join(key))
            .expect("the master key file");
        // The same simulated market as this one's (docs/deploy.md), and an instance id of its
        // own: every server of the test process has the same default one.
        let anchor = self.data_dir.path().join("market.json");
        if anchor.exists() {
            std::fs::copy(&anchor, data_dir.path().join("market.json")).expect("the market anchor");
        }
        let config = Config {
            data_dir: data_dir.path().to_path_buf(),
            instance_id: format!("{}-sibling", self.config.instance_id),
            ..self.config.clone()
        };
        TestApp::launch(self.db.clone(), config, data_dir).await
    }

    async fn launch(db: Arc<TestDatabase>, config: Config, data_dir: tempfile::TempDir) -> TestApp {
        let store = Store::connect(&config.database_url)
            .await
            .expect("database");
        let server = start(config.clone(), store).await.expect("server starts");
        TestApp {
            base: format!("http://{}", server.addr),
            client: Client::builder().cookie_store(true).build().unwrap(),
            server,
            config,
            data_dir,
            db,
        }
    }

    /// Stops the server gracefully, runs `between` on the database's URL, and starts a new
    /// server on the same database and data dir.
    pub async fn restart_after<F, Fut>(self, between: F) -> TestApp
    where
        F: FnOnce(String) -> Fut,
        Fut: std::future::Future<Output = ()>,
    {
        let TestApp {
            server,
            config,
            data_dir,
            db,
            ..
        } = self;
        server.stop().await.expect("graceful stop");
        between(db.url.clone()).await;
        TestApp::launch(db, config, data_dir).await
    }

    /// Stops the server gracefully and starts a new one on the same database and data dir.
    pub async fn restart(self) -> TestApp {
        self.restart_after(|_| async {}).await
    }

    /// The simulated market's time now (Unix ms), by the anchor it recorded in the data dir.
    pub fn market_now(&self) -> i64 {
        let text = std::fs::read_to_string(self.data_dir.path().join("market.json"))
            .expect("the simulated market's anchor");
        let anchor: signaldesk_venue::market::sim::SimAnchor =
            serde_json::from_str(&text).expect("a readable anchor");
        anchor
            .clock
            .market_at(chrono::Utc::now().timestamp_millis())
    }

    pub fn db_url(&self) -> &str {
        &self.db.url
    }

    pub fn db(&self) -> &TestDatabase {
        &self.db
    }

    pub fn store(&self) -> &Store {
        &self.server.state.store
    }

    pub async fn create_user(&self, username: &str) {
        let hash = password::hash(PASSWORD.into()).await.unwrap();
        self.store().create_user(username, &hash, 0).await.unwrap();
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base, path)
    }

    pub async fn post_json(&self, path: &str, body: Value) -> Response {
        self.client
            .post(self.url(path))
            .json(&body)
            .send()
            .await
            .unwrap()
    }

    /// Logs in through the API; returns the token.
    pub async fn login(&self, username: &str) -> String {
        let res = self
            .post_json(
                "/api/auth/login/",
                serde_json::json!({"username": username, "password": PASSWORD}),
            )
            .await;
        assert_eq!(res.status(), StatusCode::OK);
        let body: Value = res.json().await.unwrap();
        body["token"].as_str().unwrap().to_string()
    }

    /// Logs in as a browser would; returns the Cookie header to send and the CSRF value.
    pub async fn browser_login(&self, username: &str) -> BrowserSession {
        let res = Client::new()
            .post(self.url("/api/auth/login/"))
            .json(&serde_json::json!({"username": username, "password": PASSWORD}))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), StatusCode::OK);
        let pairs: Vec<String> = res
            .headers()
            .get_all("set-cookie")
            .iter()
            .map(|v| v.to_str().unwrap().split(';').next().unwrap().to_string())
            .collect();
        let csrf = pairs
            .iter()
            .find_map(|c| c.strip_prefix("csrftoken="))
            .expect("csrftoken cookie")
            .to_string();
        BrowserSession {
            cookie: pairs.join("; "),
            csrf,
        }
    }

    /// A JSON request with `Authorization: Token …` and a fresh client (no cookies).
    pub async fn call(
        &self,
        method: Method,
        path: &str,
        token: &str,
        body: Option<Value>,
    ) -> Response {
        let mut req = Client::new()
            .request(method, self.url(path))
            .header("Authorization", format!("Token {token}"));
        if let Some(body) = body {
            req = req.json(&body);
        }
        req.send().await.unwrap()
    }

    /// `call` that expects `status` and returns the JSON body (null for an empty body).
    pub async fn call_ok(
        &self,
        method: Method,
        path: &str,
        token: &str,
        body: Option<Value>,
        status: StatusCode,
    ) -> Value {
        let res = self.call(method.clone(), path, token, body).await;
        assert_eq!(res.status(), status, "{method} {path}");
        let text = res.text().await.unwrap();
        if text.is_empty() {
            Value::Null
        } else {
            serde_json::from_str(&text).unwrap()
        }
    }

    /// Adds a paper key (inactive) and returns its record.
    pub async fn add_key(&self, token: &str, key: &str, secret: &str, is_demo: bool) -> Value {
        self.add_key_on(token, "paper", key, secret, is_demo).await
    }

    /// Adds a key of `exchange` (inactive) and returns its record.
    pub async fn add_key_on(
        &self,
        token: &str,
        exchange: &str,
        key: &str,
        secret: &str,
        is_demo: bool,
    ) -> Value {
        let body = serde_json::json!({
            "key": key, "secret": secret, "is_demo": is_demo, "exchange": exchange
        });
        self.call_ok(
            Method::POST,
            "/api/api-keys/",
            token,
            Some(body),
            StatusCode::CREATED,
        )
        .await
    }

    /// Adds a key and makes it the active one.
    pub async fn activate_a_key(&self, token: &str) {
        let key = self.add_key(token, "k", "s", true).await;
        let path = format!("/api/api-keys/{}/set_active/", key["id"]);
        self.call_ok(Method::POST, &path, token, None, StatusCode::OK)
            .await;
    }

    /// Makes the user's webhook URL; its path.
    pub async fn new_webhook(&self, token: &str) -> String {
        let made = self
            .call_ok(
                Method::POST,
                "/api/webhook/",
                token,
                None,
                StatusCode::CREATED,
            )
            .await;
        made["path"].as_str().unwrap().to_string()
    }

    /// Starts the user's bot with a paper key made active; the answer.
    pub async fn start_bot(&self, token: &str) -> Value {
        self.activate_a_key(token).await;
        self.call_ok(
            Method::POST,
            "/api/command/bot/start/",
            token,
            None,
            StatusCode::OK,
        )
        .await
    }

    /// A user with a fresh token.
    pub async fn user_with_token(&self, username: &str) -> String {
        self.create_user(username).await;
        self.login(username).await
    }

    /// A request with `Authorization: Token …` and a fresh client (no cookies).
    pub async fn with_token(&self, method: Method, path: &str, token: &str) -> Response {
        Client::new()
            .request(method, self.url(path))
            .header("Authorization", format!("Token {token}"))
            .send()
            .await
            .unwrap()
    }
}

/// Asserts an error answer: the status, a JSON body with a non-empty `error` sentence.
pub async fn assert_json_error(res: Response, status: StatusCode) -> Value {
    assert_eq!(res.status(), status);
    let ctype = res.headers()["content-type"].to_str().unwrap().to_string();
    assert!(
        ctype.starts_with("application/json"),
        "content-type {ctype}"
    );
    let body: Value = res.json().await.unwrap();
    assert!(
        body["error"].as_str().is_some_and(|e| !e.is_empty()),
        "no error sentence in {body}"
    );
    body
}

pub struct BrowserSession {
    pub cookie: String,
    pub csrf: String,
}

/// One sample of the Prometheus text exposition.
#[derive(Debug)]
pub struct Sample {
    pub name: String,
    pub labels: Vec<(String, String)>,
    pub value: f64,
}

impl Sample {
    pub fn label(&self, key: &str) -> Option<&str> {
        self.labels
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

fn is_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == ':')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':')
}

/// `key="value",…}` of a sample `line`: its labels, and what follows the `}`.
fn parse_labels<'a>(line: &str, mut text: &'a str) -> (Vec<(String, String)>, &'a str) {
    let mut labels = Vec::new();
    loop {
        text = text.strip_prefix(',').unwrap_or(text);
        if let Some(rest) = text.strip_prefix('}') {
            return (labels, rest);
        }
        let (key, after) = text
            .split_once("=\"")
            .unwrap_or_else(|| panic!("bad labels: {line}"));
        assert!(is_name(key), "bad label name {key:?}: {line}");
        let mut value = String::new();
        let mut chars = after.char_indices();
        let end = loop {
            match chars.next() {
                Some((i, '"')) => break i + 1,
                Some((_, '\\')) => match chars.next() {
                    Some((_, 'n')) => value.push('\n'),
                    Some((_, c @ ('\\' | '"'))) => value.push(c),
                    other => panic!("bad escape {other:?}: {line}"),
                },
                Some((_, c)) => value.push(c),
                None => panic!("open label value: {line}"),
            }
        };
        labels.push((key.to_string(), value));
        text = &after[end..];
    }
}

/// Parses the Prometheus text exposition format (version 0.0.4), panicking on any line that
/// is not a `# HELP`, a `# TYPE` or a sample of a family whose `# TYPE` came before it.
pub fn parse_metrics(text: &str) -> Vec<Sample> {
    let mut typed: Vec<(String, String)> = Vec::new();
    let mut samples = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        if let Some(help) = line.strip_prefix("# HELP ") {
            let name = help.split(' ').next().unwrap();
            assert!(is_name(name), "bad HELP line: {line}");
            continue;
        }
        if let Some(kind) = line.strip_prefix("# TYPE ") {
            let (name, kind) = kind.split_once(' ').unwrap();
            assert!(is_name(name), "bad TYPE line: {line}");
            assert!(
                ["counter", "gauge", "histogram", "summary", "untyped"].contains(&kind),
                "bad TYPE line: {line}"
            );
            typed.push((name.to_string(), kind.to_string()));
            continue;
        }
        assert!(!line.starts_with('#'), "unexpected comment: {line}");
        let end = line
            .find(['{', ' '])
            .unwrap_or_else(|| panic!("no value: {line}"));
        let name = &line[..end];
        assert!(is_name(name), "bad metric name: {line}");
        let (labels, rest) = match line[end..].strip_prefix('{') {
            Some(inner) => parse_labels(line, inner),
            None => (Vec::new(), &line[end..]),
        };
        let value = rest.trim();
        let value: f64 = match value {
            "+Inf" => f64::INFINITY,
            "-Inf" => f64::NEG_INFINITY,
            v => v.parse().unwrap_or_else(|_| panic!("bad value: {line}")),
        };
        let family = typed
            .iter()
            .rev()
            .find(|(family, kind)| {
                name == family
                    || (kind == "histogram"
                        && ["_bucket", "_sum", "_count"]
                            .iter()
                            .any(|s| name.strip_suffix(s) == Some(family.as_str())))
            })
            .unwrap_or_else(|| panic!("no TYPE before: {line}"));
        if family.1 == "histogram" && name.ends_with("_bucket") {
            assert!(
                labels.iter().any(|(k, _)| k == "le"),
                "bucket without le: {line}"
            );
        }
        samples.push(Sample {
            name: name.to_string(),
            labels,
            value,
        });
    }
    samples
}

impl TestApp {
    /// `GET /metrics`, parsed.
    pub async fn metrics(&self) -> Vec<Sample> {
        let res = reqwest::get(self.url("/metrics")).await.unwrap();
        assert_eq!(res.status(), StatusCode::OK);
        parse_metrics(&res.text().await.unwrap())
    }

    /// The value of the sample of `name` that has all of `labels`.
    pub async fn metric(&self, name: &str, labels: &[(&str, &str)]) -> Option<f64> {
        self.metrics()
            .await
            .into_iter()
            .find(|s| s.name == name && labels.iter().all(|(k, v)| s.label(k) == Some(v)))
            .map(|s| s.value)
    }
}
