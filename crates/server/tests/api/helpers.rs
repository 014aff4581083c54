use reqwest::{Client, Method, Response, StatusCode};
use serde_json::Value;
use signaldesk_server::auth::password;
use signaldesk_server::{start, Config, RunningServer};
use signaldesk_store::test_support::TestDatabase;
use signaldesk_store::Store;

pub const PASSWORD: &str = "correct-horse-battery";

/// One running server with its own database, and a cookie-keeping client.
pub struct TestApp {
    pub base: String,
    pub client: Client,
    pub server: RunningServer,
    pub config: Config,
    pub data_dir: tempfile::TempDir,
    db: TestDatabase,
}

impl TestApp {
    pub async fn spawn() -> TestApp {
        TestApp::spawn_with(TestDatabase::sqlite(), |_| {}).await
    }

    /// One server on SQLite, and one on PostgreSQL when `TEST_DATABASE_URL` is set.
    pub async fn on_every_backend() -> Vec<TestApp> {
        let mut apps = vec![TestApp::spawn().await];
        if let Some(db) = TestDatabase::postgres().await {
            apps.push(TestApp::spawn_with(db, |_| {}).await);
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
        TestApp::launch(db, config, data_dir).await
    }

    async fn launch(db: TestDatabase, config: Config, data_dir: tempfile::TempDir) -> TestApp {
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

    /// Stops the server gracefully and starts a new one on the same database and data dir.
    pub async fn restart(self) -> TestApp {
        let TestApp {
            server,
            config,
            data_dir,
            db,
            ..
        } = self;
        server.stop().await.expect("graceful stop");
        TestApp::launch(db, config, data_dir).await
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

    /// Adds an exchange key (inactive) and returns its record.
    pub async fn add_key(&self, token: &str, key: &str, secret: &str, is_demo: bool) -> Value {
        let body = serde_json::json!({"key": key, "secret": secret, "is_demo": is_demo});
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
