//! Market value types shared by venues, the engine and the trading rules.
