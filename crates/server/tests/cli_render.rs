//! `regard render` on generated fixtures: the output has the photo's size, pixels outside the
//! quad are the photo's, the panel shows the creative, `--bench` ends with one JSON line, JPEG
//! output decodes, and every bad input gets one clear line, a non-zero exit and no file.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn regard(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_regard"))
        .arg("render")
        .args(args)
        .output()
        .unwrap()
}

struct Fixture {
    dir: tempfile::TempDir,
}

const PHOTO_BG: [u8; 3] = [60, 110, 160];
const CREATIVE: [u8; 3] = [230, 200, 30];

impl Fixture {
    /// A 160 × 120 photo with a gradient and a flat 80 × 40 creative.
    fn new() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let photo = image::RgbImage::from_fn(160, 120, |x, y| {
            image::Rgb([
                PHOTO_BG[0] + (x / 4) as u8,
                PHOTO_BG[1],
                PHOTO_BG[2] + (y / 4) as u8,
            ])
        });
        photo.save(dir.path().join("photo.png")).unwrap();
        image::RgbImage::from_pixel(80, 40, image::Rgb(CREATIVE))
            .save(dir.path().join("creative.png"))
            .unwrap();
        Fixture { dir }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn s(&self, name: &str) -> String {
        self.path(name).to_str().unwrap().to_owned()
    }

    /// Runs with the fixture's creative and photo and a perspective quad.
    fn run(&self, out: &str, extra: &[&str]) -> Output {
        let (c, p, o) = (self.s("creative.png"), self.s("photo.png"), self.s(out));
        let mut args = vec![
            "--creative",
            &c,
            "--photo",
            &p,
            "--quad",
            "40.5,30,130,36.2,126,95.5,44,88",
            "--out",
            &o,
        ];
        args.extend_from_slice(extra);
        regard(&args)
    }
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Asserts a failed run with exactly one line on stderr containing `needle`, and no output file.
fn assert_refused(o: &Output, needle: &str, out: &Path) {
    assert!(!o.status.success(), "should fail: {}", stderr(o));
    let err = stderr(o);
    assert_eq!(
        err.trim_end().lines().count(),
        1,
        "one line expected: {err}"
    );
    assert!(err.contains(needle), "{needle:?} not in {err:?}");
    assert!(!out.exists(), "nothing may be written on error");
}

#[test]
fn renders_the_creative_on_the_panel_and_leaves_the_rest() {
    let f = Fixture::new();
    let o = f.run("out.png", &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = image::open(f.path("out.png")).unwrap().into_rgb8();
    let photo = image::open(f.path("photo.png")).unwrap().into_rgb8();
    assert_eq!(out.dimensions(), photo.dimensions());
    // Outside the quad's bounding box plus a pixel: unchanged.
    for (x, y, p) in out.enumerate_pixels() {
        if !(39..=131).contains(&x) || !(29..=97).contains(&y) {
            assert_eq!(p, photo.get_pixel(x, y), "({x}, {y})");
        }
    }
    let centre = out.get_pixel(85, 62).0;
    for k in 0..3 {
        assert!(
            (centre[k] as i32 - CREATIVE[k] as i32).abs() <= 1,
            "{centre:?}"
        );
    }
    // Only the rendered file is left in the folder (the temporary one was renamed).
    let names: Vec<_> = std::fs::read_dir(f.dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(names.len(), 3, "{names:?}");
}

#[test]
fn bench_prints_timings_as_the_last_line_and_jpeg_decodes() {
    let f = Fixture::new();
    let o = f.run(
        "out.jpg",
        &[
            "--bench", "3", "--match", "--grain", "0.5", "--night", "led",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let stdout = String::from_utf8(o.stdout).unwrap();
    let last = stdout.trim_end().lines().last().unwrap();
    let v: serde_json::Value = serde_json::from_str(last).unwrap();
    for key in ["median_ms", "p10_ms", "p90_ms"] {
        assert!(v[key].as_f64().is_some_and(|t| t >= 0.0), "{key} in {last}");
    }
    assert!(v["p10_ms"].as_f64() <= v["p90_ms"].as_f64());
    let out = image::open(f.path("out.jpg")).unwrap();
    assert_eq!((out.width(), out.height()), (160, 120));
}

#[test]
fn adjustments_and_fit_flags_are_accepted() {
    let f = Fixture::new();
    let o = f.run(
        "adjusted.png",
        &[
            "--fit",
            "contain",
            "--background",
            "#102030",
            "--panel-aspect",
            "4/3",
            "--brightness",
            "-0.5",
            "--contrast",
            "0.3",
            "--saturation",
            "-1",
            "--warmth",
            "0.2",
            "--sharpness",
            "0.5",
            "--glare",
            "0.4",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let out = image::open(f.path("adjusted.png")).unwrap().into_rgb8();
    // Saturation −1 makes the yellow creative grey, brightness −0.5 darker.
    let c = out.get_pixel(85, 62).0;
    assert!((c[0] as i32 - c[2] as i32).abs() < 40, "{c:?}");
    assert!(c[0] < CREATIVE[0], "{c:?}");
}

#[test]
fn a_mask_keeps_the_photo_in_front_of_the_panel() {
    let f = Fixture::new();
    // A quarter-size mask, white on its left half.
    image::GrayImage::from_fn(40, 30, |x, _| image::Luma([if x < 20 { 255 } else { 0 }]))
        .save(f.path("mask.png"))
        .unwrap();
    let o = f.run("masked.png", &["--mask", &f.s("mask.png")]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = image::open(f.path("masked.png")).unwrap().into_rgb8();
    let photo = image::open(f.path("photo.png")).unwrap().into_rgb8();
    assert_eq!(out.get_pixel(60, 62), photo.get_pixel(60, 62));
    assert_ne!(out.get_pixel(110, 62), photo.get_pixel(110, 62));
}

#[test]
fn bad_inputs_get_one_line_and_a_failure() {
    let f = Fixture::new();
    let out = f.path("never.png");
    let (c, p, o) = (f.s("creative.png"), f.s("photo.png"), f.s("never.png"));
    let quad = |q: &str| regard(&["--creative", &c, "--photo", &p, "--quad", q, "--out", &o]);
    assert_refused(&quad("1,2,3"), "8 comma-separated numbers", &out);
    assert_refused(
        &quad("10,10,170,10,150,100,10,100"),
        "outside the photo",
        &out,
    );
    assert_refused(
        &quad("10,10,10,100,150,100,150,10"),
        "not a convex quad",
        &out,
    );
    assert_refused(
        &quad("10,10,150,100,150,10,10,100"),
        "not a convex quad",
        &out,
    );
    assert_refused(
        &quad("10,10,12,10,12,11,10,11"),
        "less than 4 square pixels",
        &out,
    );

    let good = "40,30,130,36,126,95,44,88";
    let missing = f.s("missing.png");
    let o1 = regard(&[
        "--creative",
        &missing,
        "--photo",
        &p,
        "--quad",
        good,
        "--out",
        &o,
    ]);
    assert_refused(&o1, "missing.png", &out);
    std::fs::write(f.path("junk.png"), b"this is not an image").unwrap();
    let junk = f.s("junk.png");
    let o2 = regard(&[
        "--creative",
        &c,
        "--photo",
        &junk,
        "--quad",
        good,
        "--out",
        &o,
    ]);
    assert_refused(&o2, "not a supported image", &out);
    let gif = f.s("out.gif");
    let o3 = regard(&[
        "--creative",
        &c,
        "--photo",
        &p,
        "--quad",
        good,
        "--out",
        &gif,
    ]);
    assert_refused(&o3, "unsupported extension", Path::new(&gif));
    for (flag, value, needle) in [
        (
            "--brightness",
            "1.5",
            "--brightness must be between -1 and 1",
        ),
        ("--grain", "-0.2", "--grain must be between 0 and 1"),
        ("--glare", "2", "--glare must be between 0 and 1"),
        ("--panel-aspect", "0/3", "--panel-aspect"),
        ("--background", "red", "--background"),
    ] {
        let o4 = regard(&[
            "--creative",
            &c,
            "--photo",
            &p,
            "--quad",
            good,
            "--out",
            &o,
            flag,
            value,
        ]);
        assert_refused(&o4, needle, &out);
    }
}
