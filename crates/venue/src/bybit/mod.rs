//! Bybit V5.
