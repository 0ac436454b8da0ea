//! `regard assistant-eval` (the question set's score per category) and `regard
//! assistant-bench` (offline answer latency on a large account), both on a throw-away SQLite
//! database unless `--database-url` names another (docs/assistant.md).

use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::Context;

use crate::assistant::{Assistant, Locale, Message, Question, Role, eval, fixture};
use crate::db::Db;

#[derive(Debug, clap::Args)]
pub struct EvalArgs {
    /// A question set in the format of crates/server/assistant/questions.json (default: that
    /// file, built into the binary).
    #[arg(long)]
    pub questions: Option<PathBuf>,
    /// Print every question that failed, with the answer and why.
    #[arg(long)]
    pub verbose: bool,
    /// Database to seed the demo account in (default: a temporary SQLite file).
    #[arg(long)]
    pub database_url: Option<String>,
}

#[derive(Debug, clap::Args)]
pub struct BenchArgs {
    /// Creatives of the benchmark account.
    #[arg(long, default_value_t = 1000)]
    pub creatives: usize,
    /// Locations of the benchmark account.
    #[arg(long, default_value_t = 1000)]
    pub locations: usize,
    /// Questions asked (round-robin over the benchmark's questions).
    #[arg(long, default_value_t = 300)]
    pub runs: usize,
    /// Database to seed the account in (default: a temporary SQLite file).
    #[arg(long)]
    pub database_url: Option<String>,
}

fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    Ok(tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?)
}

/// The database and the temporary folder that holds it (removed on drop).
async fn database(url: Option<&str>) -> anyhow::Result<(Db, Option<tempfile::TempDir>)> {
    match url {
        Some(url) => Ok((Db::connect(url, 4).await?, None)),
        None => {
            let dir = tempfile::tempdir()?;
            let url = format!("sqlite://{}/assistant.db?mode=rwc", dir.path().display());
            Ok((Db::connect(&url, 4).await?, Some(dir)))
        }
    }
}

/// `regard assistant-eval`.
pub fn run_eval(args: EvalArgs) -> anyhow::Result<()> {
    runtime()?.block_on(async {
        let json = match &args.questions {
            Some(path) => std::fs::read_to_string(path)
                .with_context(|| format!("reading {}", path.display()))?,
            None => eval::QUESTIONS.to_owned(),
        };
        let cases = eval::parse(&json).context("reading the question set")?;
        let (db, _dir) = database(args.database_url.as_deref()).await?;
        let owner =
            fixture::user(&db, &format!("eval-{}@regard.test", uuid::Uuid::new_v4())).await?;
        fixture::seed_demo(&db, &owner).await?;
        let report = eval::run(&db, &owner, &cases).await?;
        if args.verbose {
            for o in report.outcomes.iter().filter(|o| !o.problems.is_empty()) {
                println!(
                    "FAIL [{}] {}\n  answer ({}): {}\n  links: {:?}\n  problems: {}\n",
                    o.case.category,
                    o.case.question,
                    o.reply.intent,
                    o.reply.answer.replace('\n', " / "),
                    o.reply.links.iter().map(|l| &l.href).collect::<Vec<_>>(),
                    o.problems.join("; ")
                );
            }
        }
        print!("{}", report.table());
        Ok(())
    })
}

/// The benchmark's questions: every intent, names with and without typos.
const BENCH_QUESTIONS: [(&str, Locale); 12] = [
    ("Combien d'emplacements à Lyon ?", Locale::Fr),
    ("list my creatives for the brand Marque 7", Locale::En),
    ("Quelle création a le meilleur score ?", Locale::Fr),
    (
        "which simulation draws the most attention on the panel?",
        Locale::En,
    ),
    ("ouvre ma dernière heatmap", Locale::Fr),
    ("is my heatmap finished?", Locale::En),
    ("compare Visuel 0012 hiver et Visuel 0031 hiver", Locale::Fr),
    ("take me to the locations page", Locale::En),
    ("Comment tracer les coins du panneau ?", Locale::Fr),
    ("what does clarity mean?", Locale::En),
    ("Site 0042 Bordaux", Locale::Fr),
    ("how many bus shelters in Marseille?", Locale::En),
];

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let rank = ((p * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// `regard assistant-bench`.
pub fn run_bench(args: BenchArgs) -> anyhow::Result<()> {
    runtime()?.block_on(async {
        let (db, _dir) = database(args.database_url.as_deref()).await?;
        let owner =
            fixture::user(&db, &format!("bench-{}@regard.test", uuid::Uuid::new_v4())).await?;
        let seeding = Instant::now();
        fixture::seed_bulk(&db, &owner, args.creatives, args.locations).await?;
        db.optimize().await?;
        println!(
            "seeded {} creatives, {} locations in {:.1} s",
            args.creatives,
            args.locations,
            seeding.elapsed().as_secs_f64()
        );
        let assistant = Assistant::new(None);
        let mut all = Vec::with_capacity(args.runs);
        let mut per: Vec<Vec<Duration>> = vec![Vec::new(); BENCH_QUESTIONS.len()];
        // One untimed round so that connections and caches are warm.
        for (text, locale) in BENCH_QUESTIONS {
            assistant
                .answer(&db, &owner, &question(text, locale))
                .await?;
        }
        for run in 0..args.runs {
            let i = run % BENCH_QUESTIONS.len();
            let (text, locale) = BENCH_QUESTIONS[i];
            let q = question(text, locale);
            let start = Instant::now();
            let reply = assistant.answer(&db, &owner, &q).await?;
            let elapsed = start.elapsed();
            std::hint::black_box(reply);
            all.push(elapsed);
            per[i].push(elapsed);
        }
        println!("{:<60} {:>8} {:>8}", "question", "p50 ms", "p95 ms");
        for (i, (text, _)) in BENCH_QUESTIONS.iter().enumerate() {
            per[i].sort();
            if per[i].is_empty() {
                continue;
            }
            println!(
                "{text:<60} {:>8.2} {:>8.2}",
                ms(percentile(&per[i], 0.5)),
                ms(percentile(&per[i], 0.95))
            );
        }
        all.sort();
        println!(
            "all {} answers: p50 {:.2} ms, p95 {:.2} ms, max {:.2} ms (target: p95 <= 50 ms)",
            all.len(),
            ms(percentile(&all, 0.5)),
            ms(percentile(&all, 0.95)),
            ms(*all.last().unwrap_or(&Duration::ZERO))
        );
        Ok(())
    })
}

fn question(text: &str, locale: Locale) -> Question {
    Question {
        messages: vec![Message {
            role: Role::User,
            content: text.to_owned(),
        }],
        locale,
        path: None,
    }
}
