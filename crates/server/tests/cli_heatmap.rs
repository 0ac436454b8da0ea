//! `regard heatmap` on good and bad files: every bad file gets one clear error line, the good
//! ones are still written, and the exit status says whether any failed.

use std::path::{Path, PathBuf};
use std::process::Command;

fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("regard-cli-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A small PNG with a red square on grey.
fn write_png(path: &Path, w: u32, h: u32) {
    let mut img = image::RgbImage::from_pixel(w, h, image::Rgb([120, 120, 120]));
    for y in h / 4..h / 2 {
        for x in w / 2..3 * w / 4 {
            img.put_pixel(x, y, image::Rgb([230, 20, 20]));
        }
    }
    img.save(path).unwrap();
}

fn crc32(bytes: &[u8]) -> u32 {
    let mut c = 0xffff_ffffu32;
    for &b in bytes {
        c ^= b as u32;
        for _ in 0..8 {
            c = if c & 1 != 0 {
                0xedb8_8320 ^ (c >> 1)
            } else {
                c >> 1
            };
        }
    }
    !c
}

/// A PNG whose header claims `w × h` pixels (no real pixel data follows).
fn write_png_header(path: &Path, w: u32, h: u32) {
    let mut ihdr = b"IHDR".to_vec();
    ihdr.extend_from_slice(&w.to_be_bytes());
    ihdr.extend_from_slice(&h.to_be_bytes());
    ihdr.extend_from_slice(&[8, 2, 0, 0, 0]);
    let mut f = b"\x89PNG\r\n\x1a\n".to_vec();
    f.extend_from_slice(&13u32.to_be_bytes());
    f.extend_from_slice(&ihdr);
    f.extend_from_slice(&crc32(&ihdr).to_be_bytes());
    // An empty IDAT and IEND, so the header can be read in full.
    for name in [b"IDAT", b"IEND"] {
        f.extend_from_slice(&0u32.to_be_bytes());
        f.extend_from_slice(name);
        f.extend_from_slice(&crc32(name).to_be_bytes());
    }
    std::fs::write(path, f).unwrap();
}

fn regard(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_regard"))
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn good_images_get_a_map_and_an_analysis() {
    let dir = temp_dir("good");
    let img = dir.join("ad.png");
    write_png(&img, 160, 90);
    let out = dir.join("out");
    let o = regard(&[
        "heatmap",
        "--overlay",
        "--out",
        out.to_str().unwrap(),
        img.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let map = image::open(out.join("ad.png")).unwrap();
    assert_eq!((map.width(), map.height()), (160, 90));
    assert!(matches!(map, image::DynamicImage::ImageLuma16(_)));
    assert_eq!(map.to_luma16().iter().copied().max(), Some(65535));
    assert!(out.join("ad.overlay.png").exists());
    let j: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("ad.json")).unwrap()).unwrap();
    assert!(j["score"].as_f64().is_some());
    assert!(!j["hotspots"].as_array().unwrap().is_empty());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn both_models_write_a_16_bit_map_and_threads_change_nothing() {
    let dir = temp_dir("models");
    let img = dir.join("ad.png");
    write_png(&img, 200, 120);
    type Grey = image::ImageBuffer<image::Luma<u16>, Vec<u16>>;
    // The full map and the first-glance map.
    let run = |name: &str, extra: &[&str]| -> (Grey, Grey) {
        let out = dir.join(name);
        let mut args = vec!["heatmap", "--out", out.to_str().unwrap()];
        args.extend_from_slice(extra);
        args.push(img.to_str().unwrap());
        let o = regard(&args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let j: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(out.join("ad.json")).unwrap()).unwrap();
        assert!(!j["hotspots"].as_array().unwrap().is_empty(), "{name}");
        assert_eq!(j["glance_map"], "ad.glance.png", "{name}");
        assert!(j["glance"]["score"].as_f64().is_some(), "{name}");
        assert!(
            !j["glance"]["hotspots"].as_array().unwrap().is_empty(),
            "{name}"
        );
        let map = image::open(out.join("ad.png")).unwrap();
        let glance = image::open(out.join("ad.glance.png")).unwrap();
        assert!(
            matches!(glance, image::DynamicImage::ImageLuma16(_)),
            "{name}"
        );
        (map.to_luma16(), glance.to_luma16())
    };
    let (v3, glance) = run("default", &[]);
    for m in [&v3, &glance] {
        assert_eq!(m.dimensions(), (200, 120));
        assert_eq!(m.iter().copied().max(), Some(65535));
        // A smooth density: far more distinct levels than an 8-bit map could hold.
        let mut levels: Vec<u16> = m.iter().copied().collect();
        levels.sort_unstable();
        levels.dedup();
        assert!(levels.len() > 256, "{} levels", levels.len());
    }
    assert_ne!(glance, v3, "the first glance is its own prediction");
    assert_eq!(
        run("v3", &["--model", "v3"]),
        (v3.clone(), glance.clone()),
        "v3 is the default"
    );
    assert_eq!(
        run("threads", &["--threads", "3"]),
        (v3.clone(), glance.clone()),
        "threads change no pixel"
    );
    let (classical, classical_glance) = run("classical", &["--model", "classical"]);
    assert_eq!(classical.dimensions(), (200, 120));
    assert_ne!(classical, v3);
    assert_eq!(
        classical_glance, classical,
        "the classical model has no glance readout"
    );
    // A bad thread count is refused by the argument parser.
    let out = dir.join("zero");
    let o = regard(&[
        "heatmap",
        "--threads",
        "0",
        "--out",
        out.to_str().unwrap(),
        img.to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_files_fail_alone_with_one_line_each() {
    let dir = temp_dir("bad");
    let good = dir.join("good.png");
    write_png(&good, 64, 48);
    let text = dir.join("notes.jpg");
    std::fs::write(&text, "this is not an image\n").unwrap();
    let empty = dir.join("empty.png");
    std::fs::write(&empty, b"").unwrap();
    let truncated = dir.join("truncated.png");
    let full = std::fs::read(&good).unwrap();
    std::fs::write(&truncated, &full[..full.len() / 2]).unwrap();
    let huge = dir.join("huge.png");
    write_png_header(&huge, 100_000, 100_000);
    let zero = dir.join("zero.png");
    write_png_header(&zero, 0, 10);
    let missing = dir.join("missing.png");
    let out = dir.join("out");
    let bad = [&text, &empty, &truncated, &huge, &zero, &missing];
    let mut args = vec!["heatmap", "--out", out.to_str().unwrap()];
    args.push(good.to_str().unwrap());
    args.extend(bad.iter().map(|p| p.to_str().unwrap()));
    let o = regard(&args);
    assert!(!o.status.success());
    let stderr = String::from_utf8_lossy(&o.stderr);
    for p in bad {
        let lines: Vec<&str> = stderr
            .lines()
            .filter(|l| l.starts_with("error: ") && l.contains(p.to_str().unwrap()))
            .collect();
        assert_eq!(lines.len(), 1, "{p:?} in {stderr}");
    }
    assert!(stderr.contains("above the limit"), "{stderr}");
    assert!(stderr.contains("6 of 7 images failed"), "{stderr}");
    // The good image was still processed.
    assert!(out.join("good.png").exists() && out.join("good.json").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// `regard benchmark-reference` writes a reference the server can read, with every kind and
/// every distribution, and the same file whatever the number of threads.
#[test]
fn benchmark_reference_is_complete_and_repeatable() {
    let dir = temp_dir("reference");
    let images = dir.join("images");
    std::fs::create_dir_all(&images).unwrap();
    for (n, (w, h)) in [(320, 240), (300, 300), (240, 320), (400, 200)]
        .into_iter()
        .enumerate()
    {
        write_png(&images.join(format!("{n}.png")), w, h);
    }
    std::fs::write(images.join("notes.txt"), "not an image").unwrap();
    let (one, two) = (dir.join("one.json"), dir.join("two.json"));
    for (out, jobs) in [(&one, "1"), (&two, "2")] {
        let output = regard(&[
            "benchmark-reference",
            "--images",
            images.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--jobs",
            jobs,
        ]);
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let text = std::fs::read_to_string(&one).unwrap();
    assert_eq!(text, std::fs::read_to_string(&two).unwrap());
    let reference: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(reference["source"]["images"], 4);
    for kind in ["creative", "location", "render", "all"] {
        let k = &reference[kind];
        let expected = if kind == "all" { 12 } else { 4 };
        assert_eq!(k["images"], expected, "{kind}");
        for metric in ["score", "focus", "clarity"] {
            let q = k[metric].as_array().unwrap();
            assert_eq!(q.len(), 101, "{kind} {metric}");
            let values: Vec<f64> = q.iter().map(|v| v.as_f64().unwrap()).collect();
            assert!(
                values.windows(2).all(|w| w[0] <= w[1]),
                "{kind} {metric} sorted"
            );
            assert!(values.iter().all(|v| (0.0..=100.0).contains(v)));
        }
        assert_eq!(k["areas"].as_array().unwrap().len(), 4, "{kind}");
        assert_eq!(k["area_samples"], expected * 6);
    }
    assert!(reference["render"]["panel"].is_array());
    assert!(reference["creative"].get("panel").is_none());

    // Fewer than two images is refused with one clear line.
    let lonely = dir.join("lonely");
    std::fs::create_dir_all(&lonely).unwrap();
    write_png(&lonely.join("a.png"), 100, 100);
    let output = regard(&[
        "benchmark-reference",
        "--images",
        lonely.to_str().unwrap(),
        "--out",
        dir.join("x.json").to_str().unwrap(),
    ]);
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("fewer than two images"));
    let _ = std::fs::remove_dir_all(&dir);
}
