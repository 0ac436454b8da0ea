//! Attention engine on the command line: `regard heatmap`, `regard eval-saliency`,
//! `regard fit-saliency`, `regard bench-saliency`, `regard benchmark-reference`. File decoding, limits and writing live here;
//! all pixel work is in `regard-vision`.

mod bench;
mod evaluate;
mod heatmap;
mod osie;
mod reference;

use clap::Subcommand;
use std::path::PathBuf;

/// Default feature cache for fitting (outside the repository).
const DEFAULT_CACHE: &str = "/tmp/regard-saliency-fit-cache.bin";

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Predict attention maps: writes DIR/<name>.png (16-bit grey map at the input's size,
    /// linear in predicted fixation density, brightest = 65535), DIR/<name>.glance.png (the same
    /// for the fixations that start within the first second) and DIR/<name>.json (score,
    /// metrics, hotspots, faces, text-like regions; the glance map's under "glance") for each
    /// image.
    Heatmap {
        /// Output directory (created if missing).
        #[arg(long)]
        out: PathBuf,
        /// Also write DIR/<name>.overlay.png, the colour overlay on the image.
        #[arg(long)]
        overlay: bool,
        /// Also write DIR/<name>.fog.png, the fog view.
        #[arg(long)]
        fog: bool,
        /// Opacity of the overlay and fog, 0..1.
        #[arg(long, default_value_t = 0.6)]
        opacity: f32,
        /// Attention model: v3 (deep features; the default) or the classical one (whose glance
        /// map is its full map).
        #[arg(long, value_enum, default_value_t = heatmap::Model::V3)]
        model: heatmap::Model,
        /// Threads for each image (model v3; the maps do not depend on it). Default: the
        /// machine's cores, at most 4 (the face and text search runs beside the network).
        #[arg(long, value_parser = clap::value_parser!(u16).range(1..=64))]
        threads: Option<u16>,
        /// Input images (JPEG, PNG, WebP).
        #[arg(required = true)]
        images: Vec<PathBuf>,
    },
    /// Score the model (k-fold cross-validated by image) and the baselines on an eye-tracking
    /// set in the OSIE layout; prints a table of AUC-Judd, sAUC, NSS, CC, KLD, SIM.
    EvalSaliency {
        /// Data set directory (with fixations.json and stimuli/).
        #[arg(long)]
        dataset: PathBuf,
        /// Number of cross-validation folds (images split by index modulo folds).
        #[arg(long, default_value_t = 5)]
        folds: usize,
        /// Use only the first N images (quick checks).
        #[arg(long)]
        limit: Option<usize>,
        /// Longer side at which maps are scored (our protocol: at most 1024).
        #[arg(long, default_value_t = 800)]
        eval_long_side: usize,
        /// Worker threads (results do not depend on it).
        #[arg(long, default_value_t = 1)]
        jobs: usize,
        /// Feature cache file.
        #[arg(long, default_value = DEFAULT_CACHE)]
        cache: PathBuf,
        /// Skip the leave-one-viewer-out human baseline (the slowest part).
        #[arg(long)]
        no_human: bool,
        /// Score against the fixations that start within the first second (onsets from
        /// cumulative durations plus 30 ms a saccade where the set records none), model v3
        /// with its first-glance head, beside its full map, the baselines and humans.
        #[arg(long)]
        glance: bool,
    },
    /// Fit the model's parameters on every image of an eye-tracking set and write them as JSON
    /// (the shipped file is crates/vision/src/params.json).
    FitSaliency {
        /// Data set directory (with fixations.json and stimuli/).
        #[arg(long)]
        dataset: PathBuf,
        /// Parameters file to write.
        #[arg(long, default_value = "crates/vision/src/params.json")]
        out: PathBuf,
        /// Worker threads for feature extraction (results do not depend on it).
        #[arg(long, default_value_t = 1)]
        jobs: usize,
        /// Feature cache file.
        #[arg(long, default_value = DEFAULT_CACHE)]
        cache: PathBuf,
    },
    /// Time the engine (decoded pixels → map, score, analysis) on 1920×1080 and 24-megapixel
    /// images; prints median, p10, p90 and peak memory.
    BenchSaliency {
        /// Runs per size.
        #[arg(long, default_value_t = 15)]
        runs: usize,
        /// Attention model: v3 (the default) or the classical one.
        #[arg(long, value_enum, default_value_t = heatmap::Model::V3)]
        model: heatmap::Model,
        /// Threads for each image (model v3).
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=64))]
        threads: u16,
        /// Benchmark these image files instead of synthetic images.
        images: Vec<PathBuf>,
    },
    /// Compute the reference distributions that results are benchmarked against (score, focus,
    /// clarity, panel visibility and area shares, per kind of image) over a public image set,
    /// and write them as JSON (the shipped file is crates/server/assets/benchmarks/reference.json).
    BenchmarkReference {
        /// Directory of the set's images (JPEG, PNG, WebP), e.g. the OSIE set's stimuli/.
        #[arg(long)]
        images: PathBuf,
        /// Reference file to write.
        #[arg(long, default_value = "crates/server/assets/benchmarks/reference.json")]
        out: PathBuf,
        /// Use only the first N images, by file name (quick checks).
        #[arg(long)]
        limit: Option<usize>,
        /// Worker threads (results do not depend on it).
        #[arg(long, default_value_t = 1)]
        jobs: usize,
        /// The set's name, as shown to users.
        #[arg(long, default_value = "OSIE")]
        name: String,
        /// The set's licence.
        #[arg(long, default_value = "MIT (copyright NUS VIP lab)")]
        licence: String,
        /// Where the set comes from.
        #[arg(
            long,
            default_value = "Xu, Jiang, Wang, Kankanhalli, Zhao: Predicting human gaze beyond pixels, Journal of Vision 14(1), 2014"
        )]
        citation: String,
    },
}

/// Threads for one image when none are asked for: the machine's cores, at most 4 (more do not
/// shorten one image).
fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get().min(4))
}

pub fn run(cmd: Command) -> anyhow::Result<()> {
    match cmd {
        Command::Heatmap {
            out,
            overlay,
            fog,
            opacity,
            model,
            threads,
            images,
        } => heatmap::run(
            &out,
            &images,
            &heatmap::Options {
                overlay,
                fog,
                opacity,
                model,
                threads: threads.map_or_else(default_threads, usize::from),
            },
        ),
        Command::EvalSaliency {
            dataset,
            folds,
            limit,
            eval_long_side,
            jobs,
            cache,
            no_human,
            glance,
        } => evaluate::eval_saliency(&evaluate::EvalOptions {
            dataset: &dataset,
            folds,
            limit,
            eval_long_side,
            jobs,
            cache: &cache,
            no_human,
            glance,
        }),
        Command::FitSaliency {
            dataset,
            out,
            jobs,
            cache,
        } => evaluate::fit_saliency(&dataset, &out, &cache, jobs),
        Command::BenchSaliency {
            runs,
            model,
            threads,
            images,
        } => bench::run(runs, model.into(), threads.into(), &images),
        Command::BenchmarkReference {
            images,
            out,
            limit,
            jobs,
            name,
            licence,
            citation,
        } => reference::run(&reference::Options {
            images: &images,
            out: &out,
            limit,
            jobs,
            name: &name,
            licence: &licence,
            citation: &citation,
        }),
    }
}
