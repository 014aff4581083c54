//! `[bybit]`: where Bybit keys trade, demo trading or mainnet. The defaults are Bybit's
//! documented addresses; tests point them at a local fake.

use serde::{Deserialize, Serialize};

use super::private::{BybitConfig, Credentials, Environment};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct BybitSettings {
    pub demo_rest_url: String,
    pub demo_ws_url: String,
    pub mainnet_rest_url: String,
    pub mainnet_ws_url: String,
}

impl Default for BybitSettings {
    fn default() -> Self {
        Self {
            demo_rest_url: Environment::Demo.rest_url().into(),
            demo_ws_url: Environment::Demo.private_ws_url().into(),
            mainnet_rest_url: Environment::Mainnet.rest_url().into(),
            mainnet_ws_url: Environment::Mainnet.private_ws_url().into(),
        }
    }
}

impl BybitSettings {
    /// The client configuration of a key: demo trading or mainnet by `demo`.
    pub fn config_for(&self, credentials: Credentials, demo: bool) -> BybitConfig {
        let environment = Environment::from_is_demo(demo);
        let mut config = BybitConfig::new(environment, credentials);
        let (rest, ws) = match environment {
            Environment::Demo => (&self.demo_rest_url, &self.demo_ws_url),
            Environment::Mainnet => (&self.mainnet_rest_url, &self.mainnet_ws_url),
        };
        config.rest_url = rest.clone();
        config.private_ws_url = ws.clone();
        config
    }
}
