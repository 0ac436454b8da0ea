//! Reads two generated posters (posters/gen.py in the lab) and checks lines, words and heights.
#[path = "../examples/common/mod.rs"]
mod common;

fn cer(a: &str, b: &str) -> f32 {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            cur.push(
                (prev[j + 1] + 1)
                    .min(cur[j] + 1)
                    .min(prev[j] + (ca != cb) as usize),
            );
        }
        prev = cur;
    }
    prev[b.len()] as f32 / b.len().max(1) as f32
}

/// (text, cap height px, box) of the ground truth, read from the JSON without a JSON crate.
fn truth(path: &str) -> Vec<(String, f32, [f32; 4])> {
    let s = std::fs::read_to_string(path).unwrap();
    s.split("\"text\": ")
        .skip(1)
        .map(|part| {
            let text = part[1..].split('"').next().unwrap().to_string();
            let field =
                |name: &str| -> &str { part.split(&format!("\"{name}\": ")).nth(1).unwrap() };
            let cap: f32 = field("cap_px")
                .split([',', '\n'])
                .next()
                .unwrap()
                .trim()
                .parse()
                .unwrap();
            let b = field("box");
            let nums: Vec<f32> = b[1..b.find(']').unwrap()]
                .split(',')
                .map(|v| v.trim().parse().unwrap())
                .collect();
            (text, cap, [nums[0], nums[1], nums[2], nums[3]])
        })
        .collect()
}

fn check(name: &str) {
    let (rgb, w, h) = common::load_png(&format!("tests/data/{name}.png"));
    let lines = regard_ocr::read(&rgb, w, h).unwrap();
    let gt = truth(&format!("tests/data/{name}.json"));
    let mut good = 0;
    for (text, cap, b) in &gt {
        let (cx, cy) = (
            (b[0] + b[2]) / 2.0 / w as f32,
            (b[1] + b[3]) / 2.0 / h as f32,
        );
        let found = lines.iter().find(|l| {
            l.rect.x <= cx
                && cx <= l.rect.x + l.rect.width
                && l.rect.y <= cy
                && cy <= l.rect.y + l.rect.height
        });
        let Some(l) = found else {
            panic!("{name}: line not found: {text}")
        };
        let err = (l.letter_height * h as f32 - cap).abs() / cap;
        let c = cer(&l.text, text);
        println!(
            "{name}: {text:?} -> {:?} cer {c:.2} height {:.1} px vs {cap} ({err:.3})",
            l.text,
            l.letter_height * h as f32
        );
        assert!(err < 0.2, "{name}: letter height of {text}: {err}");
        good += (c <= 0.2) as usize;
    }
    assert!(
        good * 10 >= gt.len() * 8,
        "{name}: {good}/{} lines read with CER <= 20 %",
        gt.len()
    );
    // every reported line lies on a true line
    for l in &lines {
        let (cx, cy) = (
            (l.rect.x + l.rect.width / 2.0) * w as f32,
            (l.rect.y + l.rect.height / 2.0) * h as f32,
        );
        assert!(
            gt.iter().any(|(_, c, b)| b[0] - c <= cx
                && cx <= b[2] + c
                && b[1] - c <= cy
                && cy <= b[3] + c),
            "{name}: reported line off text: {l:?}"
        );
    }
}

#[test]
fn flat_poster_is_read() {
    check("p02");
}

#[test]
fn white_on_red_poster_over_branches_is_read() {
    check("p34");
}

#[test]
fn one_type_size_one_height() {
    // p34: the two headline lines share a font and a size
    let (rgb, w, h) = common::load_png("tests/data/p34.png");
    let lines = regard_ocr::read(&rgb, w, h).unwrap();
    let heads: Vec<f32> = lines
        .iter()
        .filter(|l| l.text.starts_with("LE GO") || l.text.starts_with("OFFRE"))
        .map(|l| l.letter_height)
        .collect();
    assert_eq!(heads.len(), 2, "{lines:?}");
    let d = (heads[0] - heads[1]).abs() / ((heads[0] + heads[1]) / 2.0);
    assert!(d <= 0.05, "two lines of one size differ by {d}");
}
