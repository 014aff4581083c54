//! What an exchange reported of an API key's permissions when Signal Desk last checked it
//! (on Bybit, `GET /v5/user/query-api`): kept on the key's row, shown in the key list, and
//! read by the exchange's rule of which permissions move funds (docs/security.md, "Keys that
//! cannot withdraw").

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// An API key's permissions as the exchange reported them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyPermissions {
    /// The key may only read.
    pub read_only: bool,
    /// Each permission group with the permissions granted in it, as the exchange names them
    /// (Bybit: `{"ContractTrade": ["Order", "Position"], "Wallet": [], …}`).
    pub groups: BTreeMap<String, Vec<String>>,
    /// The addresses the key is bound to, as reported (Bybit's `["*"]`: none).
    pub ips: Vec<String>,
}

/// One permission a key holds: its name and the group it is listed under.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Permission {
    pub group: String,
    pub name: String,
}

impl KeyPermissions {
    /// Whether the key works only from the addresses it lists. Bybit
    /// (user/create-subuid-apikey.mdx, `ips`): "don't pass ips or pass with `"*"` means no
    /// bind", and query-api answers such a key's `ips` as `["*"]`.
    pub fn ip_restricted(&self) -> bool {
        let listed: Vec<&str> = self
            .ips
            .iter()
            .map(|ip| ip.trim())
            .filter(|ip| !ip.is_empty())
            .collect();
        !listed.is_empty() && !listed.contains(&"*")
    }

    /// Every permission granted in `group`.
    pub fn in_group(&self, group: &str) -> Vec<Permission> {
        self.groups
            .get(group)
            .into_iter()
            .flatten()
            .map(|name| Permission {
                group: group.to_string(),
                name: name.clone(),
            })
            .collect()
    }

    /// Whether `name` is granted in any of `groups`.
    pub fn grants(&self, groups: &[&str], name: &str) -> bool {
        groups
            .iter()
            .filter_map(|g| self.groups.get(*g))
            .any(|names| names.iter().any(|n| n == name))
    }
}

impl std::fmt::Display for Permission {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the {} permission ({})", self.name, self.group)
    }
}

/// `permissions` as one phrase of a sentence: "the Withdraw permission (Wallet)", "A, B and
/// C".
pub fn describe(permissions: &[Permission]) -> String {
    let named: Vec<String> = permissions.iter().map(ToString::to_string).collect();
    match named.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_ips(ips: &[&str]) -> KeyPermissions {
        KeyPermissions {
            ips: ips.iter().map(|s| s.to_string()).collect(),
            ..KeyPermissions::default()
        }
    }

    #[test]
    fn a_star_or_no_address_is_no_restriction() {
        assert!(!with_ips(&["*"]).ip_restricted());
        assert!(!with_ips(&[]).ip_restricted());
        assert!(!with_ips(&[""]).ip_restricted());
        assert!(!with_ips(&["1.2.3.4", "*"]).ip_restricted());
        assert!(with_ips(&["1.2.3.4"]).ip_restricted());
        assert!(with_ips(&["1.2.3.4", "5.6.7.8"]).ip_restricted());
    }

    #[test]
    fn permissions_read_as_one_phrase() {
        let p = |group: &str, name: &str| Permission {
            group: group.into(),
            name: name.into(),
        };
        assert_eq!(describe(&[]), "");
        assert_eq!(
            describe(&[p("Wallet", "Withdraw")]),
            "the Withdraw permission (Wallet)"
        );
        assert_eq!(
            describe(&[
                p("Wallet", "AccountTransfer"),
                p("Wallet", "Withdraw"),
                p("FiatP2P", "FiatP2POrder")
            ]),
            "the AccountTransfer permission (Wallet), the Withdraw permission (Wallet) and the FiatP2POrder permission (FiatP2P)"
        );
    }

    #[test]
    fn grants_looks_in_the_named_groups_only() {
        let mut key = KeyPermissions::default();
        key.groups
            .insert("ContractTrade".into(), vec!["Order".into()]);
        key.groups.insert("Wallet".into(), vec![]);
        assert!(key.grants(&["ContractTrade", "Derivatives"], "Order"));
        assert!(!key.grants(&["Derivatives"], "Order"));
        assert!(!key.grants(&["ContractTrade"], "Position"));
        assert!(key.in_group("Wallet").is_empty());
        assert_eq!(key.in_group("ContractTrade").len(), 1);
    }
}
