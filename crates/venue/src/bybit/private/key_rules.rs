//! Which Bybit keys Signal Desk trades with, read from what `GET /v5/user/query-api`
//! reports (user/apikey-info.mdx): a key must be read-write with contract Orders and
//! Positions, and must not be able to move funds out of the account (docs/security.md, "Keys
//! that cannot withdraw").
//!
//! The permission groups of user/apikey-info.mdx, and what each can do to the funds:
//!
//! - `Wallet`: "Permission of wallet `AccountTransfer`, `SubMemberTransfer`(master account),
//!   `SubMemberTransferList`(sub account), `Withdraw`(master account)". Withdraw sends coins
//!   off Bybit (asset/withdraw/withdraw.mdx: "Withdraw assets from your Bybit account");
//!   AccountTransfer moves them between the account's wallets (asset/transfer/
//!   create-inter-transfer.mdx, out of the Unified Trading wallet the bot trades from);
//!   SubMemberTransfer and SubMemberTransferList move them to another UID (asset/transfer/
//!   unitransfer.mdx: "Transfer between sub-sub or main-sub"). Every Wallet permission
//!   moves funds: all are refused, including names Bybit may add to the group.
//! - `FiatP2P`: "Permission of P2P `FiatP2POrder`, `Advertising`": a P2P sale releases the
//!   coins to the buyer (p2p/order/release-digital-asset.mdx, `POST /v5/p2p/order/finish`),
//!   so funds leave the account. Refused.
//! - `FiatBitPay`: "Permission of Bybit Pay `FaitPayOrder`": paying with Bybit Pay sends
//!   funds to a merchant. Refused.
//! - Not refused, as none sends funds out of the account: `ContractTrade`, `Spot`,
//!   `Options`, `Derivatives`, `BlockTrade` (trading), `Exchange` ("Permission of convert":
//!   one coin for another in the same account), `Earn` (the account's own earn products),
//!   `FiatConvertBroker` (fiat convert within the account), `BitCard` (the card's records
//!   and points; card payments are not made with the key), `ByXPost` (community posts),
//!   `Affiliate` (affiliate data), and the deprecated `NFT` and `CopyTrading` ("always
//!   `[]`").

use signaldesk_core::key_permissions::{KeyPermissions, Permission};

/// The groups every permission of which moves funds out of the account (see above).
pub const FUNDS_GROUPS: [&str; 3] = ["Wallet", "FiatP2P", "FiatBitPay"];

/// Every permission of the key that can withdraw or transfer funds, in [`FUNDS_GROUPS`]
/// order; empty for a key that cannot.
pub fn moves_funds(key: &KeyPermissions) -> Vec<Permission> {
    FUNDS_GROUPS.iter().flat_map(|g| key.in_group(g)).collect()
}

/// Whether the key may place orders and manage positions on USDT perpetuals: read-write
/// (`readOnly` 0) with `Order` and `Position` under `ContractTrade` (or `Derivatives`, how
/// some accounts list the unified account's contract permissions).
pub fn can_trade_contracts(key: &KeyPermissions) -> bool {
    let groups = ["ContractTrade", "Derivatives"];
    !key.read_only && key.grants(&groups, "Order") && key.grants(&groups, "Position")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(groups: &[(&str, &[&str])]) -> KeyPermissions {
        KeyPermissions {
            read_only: false,
            groups: groups
                .iter()
                .map(|(g, names)| (g.to_string(), names.iter().map(|n| n.to_string()).collect()))
                .collect(),
            ips: vec!["*".into()],
        }
    }

    fn names(permissions: &[Permission]) -> Vec<String> {
        permissions
            .iter()
            .map(|p| format!("{}/{}", p.group, p.name))
            .collect()
    }

    #[test]
    fn a_trading_key_moves_no_funds() {
        let trading = key(&[
            ("ContractTrade", &["Order", "Position"]),
            ("Spot", &["SpotTrade"]),
            ("Wallet", &[]),
            ("Exchange", &["ExchangeHistory"]),
            ("Earn", &["Earn"]),
            ("Derivatives", &["DerivativesTrade"]),
            ("BitCard", &["BitCard"]),
        ]);
        assert!(moves_funds(&trading).is_empty());
        assert!(can_trade_contracts(&trading));
    }

    #[test]
    fn every_wallet_p2p_and_pay_permission_moves_funds() {
        let k = key(&[
            ("ContractTrade", &["Order", "Position"]),
            (
                "Wallet",
                &[
                    "AccountTransfer",
                    "SubMemberTransfer",
                    "Withdraw",
                    "SomethingNew",
                ],
            ),
            ("FiatP2P", &["FiatP2POrder", "Advertising"]),
            ("FiatBitPay", &["FaitPayOrder"]),
        ]);
        assert_eq!(
            names(&moves_funds(&k)),
            [
                "Wallet/AccountTransfer",
                "Wallet/SubMemberTransfer",
                "Wallet/Withdraw",
                "Wallet/SomethingNew",
                "FiatP2P/FiatP2POrder",
                "FiatP2P/Advertising",
                "FiatBitPay/FaitPayOrder"
            ]
        );
        let sub = key(&[("Wallet", &["SubMemberTransferList"])]);
        assert_eq!(names(&moves_funds(&sub)), ["Wallet/SubMemberTransferList"]);
    }

    #[test]
    fn trading_needs_read_write_orders_and_positions() {
        let mut k = key(&[("ContractTrade", &["Order", "Position"])]);
        k.read_only = true;
        assert!(!can_trade_contracts(&k));
        assert!(!can_trade_contracts(&key(&[("ContractTrade", &["Order"])])));
        assert!(can_trade_contracts(&key(&[(
            "Derivatives",
            &["Order", "Position"]
        )])));
        assert!(!can_trade_contracts(&key(&[("Spot", &["SpotTrade"])])));
    }
}
