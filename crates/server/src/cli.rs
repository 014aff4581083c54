//! The `signaldesk` command line (DESIGN.md section 4).

use std::io::BufRead;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context};
use clap::{Args, Parser, Subcommand};
use signaldesk_store::{Store, StoreError};

use crate::app::now_ms;
use crate::auth::password;
use crate::config::{Config, Overrides};

#[derive(Parser)]
#[command(
    name = "signaldesk",
    version,
    about = "Signal Desk: a self-hosted dashboard and engine for a leveraged futures bot"
)]
struct Cli {
    /// TOML configuration file (defaults < file < SIGNALDESK_* env < flags).
    #[arg(long, global = true, env = "SIGNALDESK_CONFIG")]
    config: Option<PathBuf>,
    /// Log lines on standard error: text (coloured only when stderr is a terminal) or json
    /// (one JSON object a line, for log collectors).
    #[arg(
        long,
        global = true,
        value_enum,
        env = "SIGNALDESK_LOG_FORMAT",
        default_value = "text"
    )]
    log_format: LogFormat,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Start the HTTP server, the web app and the bots.
    Serve(ServeArgs),
    /// Manage user accounts.
    #[command(subcommand)]
    User(UserCommand),
    /// Move a trading history in.
    #[command(subcommand)]
    History(HistoryCommand),
    /// Compare each user's venue account with the store; print every difference and exit 1
    /// if there is any (run it on a stopped server for a paper account).
    Audit {
        /// Only this user.
        #[arg(long)]
        username: Option<String>,
        #[command(flatten)]
        storage: StorageArgs,
        /// Gone: each user is audited on their own account (refused with a sentence).
        #[arg(long, hide = true)]
        venue: Option<String>,
    },
    /// Run a user's bot (saved settings, changed by --set) over the simulated market's
    /// history and print what it would have done (docs/backtesting.md).
    Backtest(BacktestArgs),
    /// Replay the signals a user's bot acted on in a period through a backtest of the
    /// user's current settings on the account's market and compare the trades side by side
    /// (docs/parity.md). Exit code 0: they agree; 3: they differ; 1: an error.
    Parity(ParityArgs),
    /// Market history for backtests.
    #[command(subcommand)]
    Candles(CandlesCommand),
    /// Print the OpenAPI document of the HTTP API (what `GET /api/openapi.json` serves).
    Openapi,
    /// Print the technical rating of the last candle of a CSV file as JSON
    /// (header `time,open,high,low,close,volume`, oldest first).
    Ratings {
        #[arg(long)]
        candles: PathBuf,
    },
}

/// Where the data lives; shared by every command that opens the database.
#[derive(Args)]
struct StorageArgs {
    /// Database URL: sqlite://PATH (default sqlite://data/signaldesk.db) or postgres://… [env: SIGNALDESK_DATABASE_URL]
    #[arg(long)]
    database: Option<String>,
    /// Folder for the master key file (default data/) [env: SIGNALDESK_DATA_DIR]
    #[arg(long)]
    data_dir: Option<PathBuf>,
}

#[derive(Args)]
struct ServeArgs {
    /// Listen address (default 127.0.0.1:8000) [env: SIGNALDESK_ADDR]
    #[arg(long)]
    addr: Option<SocketAddr>,
    #[command(flatten)]
    storage: StorageArgs,
    /// Gone: each user's active API key chooses where their bot trades (refused with a
    /// sentence saying so).
    #[arg(long, hide = true)]
    venue: Option<String>,
    /// Serve the web app from this folder instead of the embedded copy.
    #[arg(long)]
    static_dir: Option<PathBuf>,
    /// The `instance` label of every /metrics series (default <hostname>-<pid>) [env: SIGNALDESK_INSTANCE_ID]
    #[arg(long)]
    instance_id: Option<String>,
}

#[derive(Subcommand)]
enum CandlesCommand {
    /// Store Bybit's instrument of each symbol (read again every time) and its 1-minute
    /// candles from the first day to the last (UTC, both included): only the minutes not
    /// stored yet are fetched, so it resumes and fills gaps (docs/backtesting.md).
    Fetch {
        /// Comma-separated symbols.
        #[arg(long, value_delimiter = ',', required = true)]
        symbols: Vec<String>,
        #[arg(long)]
        from: chrono::NaiveDate,
        #[arg(long)]
        to: chrono::NaiveDate,
        #[command(flatten)]
        storage: StorageArgs,
    },
    /// Store your own 1-minute candles for backtests with `--data bybit`: a CSV file
    /// (header `time,open,high,low,close,volume`, any order, gaps allowed) or a Freqtrade data
    /// directory's futures 1-minute candles (feather or json). Every candle of a file is
    /// checked first; a minute stored already with the same values is not written again
    /// (docs/backtesting.md, "Your own candles").
    #[command(group(clap::ArgGroup::new("source").required(true).args(["file", "freqtrade"])))]
    Import {
        /// A CSV file of one symbol's candles.
        #[arg(long)]
        file: Option<PathBuf>,
        /// The CSV file's symbol (default: the one its name starts with, as BTCUSDT.csv).
        #[arg(long, requires = "file")]
        symbol: Option<String>,
        /// A Freqtrade data directory (its futures/ folder is read): BTC_USDT_USDT-1m-futures.feather
        /// becomes BTCUSDT.
        #[arg(long)]
        freqtrade: Option<PathBuf>,
        #[command(flatten)]
        storage: StorageArgs,
    },
}

#[derive(Args)]
struct ParityArgs {
    #[arg(long)]
    username: String,
    /// Start: a day in the user's zone (YYYY-MM-DD, from its first instant) or an RFC 3339
    /// time (2026-11-20T12:00:00Z).
    #[arg(long)]
    from: String,
    /// End: a day in the user's zone (included, to its end) or an RFC 3339 time (excluded).
    #[arg(long)]
    to: String,
    /// Print the comparison as JSON (every row, both sides, differences, totals).
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    storage: StorageArgs,
}

#[derive(Args)]
struct BacktestArgs {
    #[arg(long)]
    username: String,
    /// First day, in the user's zone (default: 30 days before --to).
    #[arg(long)]
    from: Option<chrono::NaiveDate>,
    /// Last day, included (default: yesterday).
    #[arg(long)]
    to: Option<chrono::NaiveDate>,
    /// Comma-separated symbols (default: every symbol of the simulated market); with
    /// `--data bybit`, any symbol whose candles and instrument were fetched.
    #[arg(long, value_delimiter = ',')]
    symbols: Vec<String>,
    /// Signals: ratings (the rating engine, default) or alerts (the user's recorded
    /// TradingView alerts).
    #[arg(long, value_enum, default_value = "ratings")]
    source: SourceArg,
    /// Prices: simulated (the simulated market, default) or bybit (candles stored by
    /// `signaldesk candles fetch` or `signaldesk candles import`).
    #[arg(long, value_enum, default_value = "simulated")]
    data: DataArg,
    /// A settings field to change for this run, key=value; repeatable.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
    /// Print the summary and the trades as JSON.
    #[arg(long)]
    json: bool,
    /// A sweep: one run per value of the key, key=v1,v2,…; twice for every combination of
    /// two keys (ratings computed once, runs on all cores).
    #[arg(long = "sweep", value_name = "KEY=V1,V2,...")]
    sweep: Vec<String>,
    /// With --sweep, a walk-forward: pick the best cell on each TRAIN-day window, trade it on
    /// the TEST days after (docs/backtesting.md "Walk-forward").
    #[arg(long = "walk-forward", value_name = "TRAIN:TEST")]
    walk_forward: Option<String>,
    /// How a walk-forward compares cells: total_pnl (default) or pnl_over_drawdown.
    #[arg(long, value_name = "METRIC", default_value = "total_pnl")]
    metric: String,
    #[command(flatten)]
    storage: StorageArgs,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum DataArg {
    Simulated,
    Bybit,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum SourceArg {
    Ratings,
    Alerts,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum LogFormat {
    Text,
    Json,
}

#[derive(Subcommand)]
enum UserCommand {
    /// Create a user (fails if the username is taken).
    Create(UserArgs),
    /// Set a user's password (ends that user's sessions).
    SetPassword(UserArgs),
    /// Turn off a user's two-factor login (for a user who lost the authenticator and the
    /// recovery codes); they log in with the password alone and can set it up again.
    #[command(name = "reset-2fa")]
    Reset2fa {
        #[arg(long)]
        username: String,
        #[command(flatten)]
        storage: StorageArgs,
    },
}

#[derive(Subcommand)]
enum HistoryCommand {
    /// Import closed trades, martingale chains and balance snapshots from a JSON file
    /// (format in docs/history-import.md) into a user's account.
    Import {
        #[arg(long)]
        username: String,
        #[arg(long)]
        file: PathBuf,
        #[command(flatten)]
        storage: StorageArgs,
    },
}

#[derive(Args)]
struct UserArgs {
    #[arg(long)]
    username: String,
    /// The password; read from the first line of standard input when omitted.
    #[arg(long)]
    password: Option<String>,
    #[command(flatten)]
    storage: StorageArgs,
}

pub fn main() -> ExitCode {
    let cli = Cli::parse();
    // A backtest's own output is its summary: the exchange's per-order lines would bury it.
    let quiet = matches!(cli.command, Command::Backtest(_) | Command::Parity(_));
    init_tracing(cli.log_format, quiet);
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(cli)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.is::<crate::backtest::parity_cli::Differences>() => {
            eprintln!("{e}");
            ExitCode::from(crate::backtest::parity_cli::DIFFERENCES_EXIT)
        }
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// Logs go to standard error. Colours only when it is a terminal: a log written to a file or
/// a pipe carries no ANSI escape codes.
fn init_tracing(format: LogFormat, quiet: bool) {
    use std::io::IsTerminal;
    let default = if quiet {
        "warn"
    } else {
        "info,sqlx=warn,tower_http=info"
    };
    let filter =
        tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| default.into());
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    let _ = match format {
        LogFormat::Text => builder
            .with_ansi(std::io::stderr().is_terminal())
            .try_init(),
        LogFormat::Json => builder.json().with_ansi(false).try_init(),
    };
}

fn storage_overrides(storage: StorageArgs) -> Overrides {
    Overrides {
        database_url: storage.database,
        data_dir: storage.data_dir,
        ..Overrides::default()
    }
}

async fn run(cli: Cli) -> anyhow::Result<()> {
    let file = cli.config.as_deref();
    match cli.command {
        Command::Ratings { candles } => print_ratings(&candles),
        Command::Openapi => {
            println!(
                "{}",
                serde_json::to_string_pretty(&crate::router::document())?
            );
            Ok(())
        }
        Command::Audit {
            username,
            storage,
            venue,
        } => {
            refuse_venue_flag(venue)?;
            let config =
                Config::load(file, &storage_overrides(storage)).context("invalid configuration")?;
            if crate::audit::run(&config, username.as_deref()).await? {
                Ok(())
            } else {
                bail!("the books differ from the venue")
            }
        }
        Command::Backtest(args) => {
            let config = Config::load(file, &storage_overrides(args.storage))
                .context("invalid configuration")?;
            let asked = crate::backtest::cli::Asked {
                username: args.username,
                from: args.from,
                to: args.to,
                symbols: args.symbols,
                source: match args.source {
                    SourceArg::Ratings => signaldesk_backtest::Source::Ratings,
                    SourceArg::Alerts => signaldesk_backtest::Source::Alerts,
                },
                data: match args.data {
                    DataArg::Simulated => signaldesk_backtest::Data::Simulated,
                    DataArg::Bybit => signaldesk_backtest::Data::Bybit,
                },
                set: args.set,
                json: args.json,
                sweep: args.sweep,
                walk_forward: args.walk_forward,
                metric: args.metric,
            };
            crate::backtest::cli::run(&config, asked).await
        }
        Command::Parity(args) => {
            let config = Config::load(file, &storage_overrides(args.storage))
                .context("invalid configuration")?;
            let asked = crate::backtest::parity_cli::Asked {
                username: args.username,
                from: args.from,
                to: args.to,
                json: args.json,
            };
            crate::backtest::parity_cli::run(&config, asked).await
        }
        Command::Candles(CandlesCommand::Fetch {
            symbols,
            from,
            to,
            storage,
        }) => {
            let config =
                Config::load(file, &storage_overrides(storage)).context("invalid configuration")?;
            crate::backtest::fetch_cli::run(&config, symbols, from, to).await
        }
        Command::Candles(CandlesCommand::Import {
            file: csv,
            symbol,
            freqtrade,
            storage,
        }) => {
            use crate::backtest::import_cli::Source;
            let config =
                Config::load(file, &storage_overrides(storage)).context("invalid configuration")?;
            let source = match (csv, freqtrade) {
                (Some(file), _) => Source::Csv { file, symbol },
                (None, Some(dir)) => Source::Freqtrade { dir },
                (None, None) => bail!("name --file or --freqtrade"),
            };
            crate::backtest::import_cli::run(&config, source).await
        }
        Command::Serve(args) => {
            refuse_venue_flag(args.venue)?;
            let overrides = Overrides {
                addr: args.addr,
                static_dir: args.static_dir,
                instance_id: args.instance_id,
                ..storage_overrides(args.storage)
            };
            let config = Config::load(file, &overrides).context("invalid configuration")?;
            crate::serve::serve(config).await
        }
        Command::User(UserCommand::Create(args)) => {
            let (store, username, pass) = open_for_user(file, args).await?;
            password::check_username(&username).map_err(anyhow::Error::msg)?;
            password::check_new_password(&pass).map_err(anyhow::Error::msg)?;
            let hash = password::hash(pass).await.map_err(anyhow::Error::msg)?;
            match store.create_user(&username, &hash, now_ms()).await {
                Ok(_) => println!("Created user \"{username}\"."),
                Err(StoreError::Conflict(_)) => bail!("user \"{username}\" already exists"),
                Err(e) => return Err(e.into()),
            }
            store.close().await;
            Ok(())
        }
        Command::User(UserCommand::SetPassword(args)) => {
            let (store, username, pass) = open_for_user(file, args).await?;
            password::check_new_password(&pass).map_err(anyhow::Error::msg)?;
            let hash = password::hash(pass).await.map_err(anyhow::Error::msg)?;
            match store.set_password(&username, &hash).await {
                Ok(()) => println!("Password of \"{username}\" changed; its sessions were ended."),
                Err(StoreError::NotFound) => bail!("no user \"{username}\""),
                Err(e) => return Err(e.into()),
            }
            store.close().await;
            Ok(())
        }
        Command::User(UserCommand::Reset2fa { username, storage }) => {
            let config =
                Config::load(file, &storage_overrides(storage)).context("invalid configuration")?;
            let store = Store::connect(&config.database_url)
                .await
                .context("cannot open the database")?;
            let username = username.trim();
            match store.reset_totp(username).await {
                Ok(true) => println!("Two-factor login of \"{username}\" turned off."),
                Ok(false) => println!("Two-factor login of \"{username}\" was already off."),
                Err(StoreError::NotFound) => bail!("no user \"{username}\""),
                Err(e) => return Err(e.into()),
            }
            store.close().await;
            Ok(())
        }
        Command::History(HistoryCommand::Import {
            username,
            file: history,
            storage,
        }) => {
            let config =
                Config::load(file, &storage_overrides(storage)).context("invalid configuration")?;
            let store = Store::connect(&config.database_url)
                .await
                .context("cannot open the database")?;
            let Some(user) = store.user_by_username(username.trim()).await? else {
                bail!("no user \"{username}\"");
            };
            let done = crate::history::import(&store, user.id, &history).await?;
            println!(
                "Imported {} trades, {} chains and {} balance snapshots for \"{}\".",
                done.trades, done.chains, done.balance_snapshots, user.username
            );
            store.close().await;
            Ok(())
        }
    }
}

/// `--venue` chose one venue for every user; each user's active key chooses now.
fn refuse_venue_flag(venue: Option<String>) -> anyhow::Result<()> {
    match venue {
        None => Ok(()),
        Some(_) => bail!("{}", crate::config::VENUE_IS_GONE),
    }
}

/// `signaldesk ratings`: why a signal was given, indicator by indicator.
fn print_ratings(path: &std::path::Path) -> anyhow::Result<()> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let candles = signaldesk_ratings::parse_candles_csv(&text)
        .with_context(|| format!("{} is not a candle file", path.display()))?;
    let report = signaldesk_ratings::report_for(&candles)?;
    println!("{}", serde_json::to_string_pretty(&report)?);
    Ok(())
}

async fn open_for_user(
    file: Option<&std::path::Path>,
    args: UserArgs,
) -> anyhow::Result<(Store, String, String)> {
    let config =
        Config::load(file, &storage_overrides(args.storage)).context("invalid configuration")?;
    let pass = match args.password {
        Some(p) => p,
        None => {
            let mut line = String::new();
            std::io::stdin().lock().read_line(&mut line)?;
            line.trim_end_matches(['\r', '\n']).to_string()
        }
    };
    let store = Store::connect(&config.database_url)
        .await
        .context("cannot open the database")?;
    Ok((store, args.username.trim().to_string(), pass))
}
