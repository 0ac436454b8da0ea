//! Runs regard_vision::text::lines on posters (PNG) and prints JSON: {id: {lines: [{box, letter_height_px}], ms}}.
use std::time::Instant;

fn load(path: &str) -> (Vec<u8>, usize, usize) {
    let dec = png::Decoder::new(std::fs::File::open(path).unwrap());
    let mut r = dec.read_info().unwrap();
    let mut buf = vec![0; r.output_buffer_size()];
    let info = r.next_frame(&mut buf).unwrap();
    buf.truncate(info.buffer_size());
    assert_eq!(info.color_type, png::ColorType::Rgb);
    (buf, info.width as usize, info.height as usize)
}

fn main() {
    let mut out = Vec::new();
    for path in std::env::args().skip(1) {
        let id = std::path::Path::new(&path).file_stem().unwrap().to_string_lossy().to_string();
        let (rgb, w, h) = load(&path);
        let img = regard_vision::RgbImage::new(w, h, &rgb).unwrap();
        let t = Instant::now();
        let lines = regard_vision::text::lines(&img);
        let ms = t.elapsed().as_secs_f64() * 1e3;
        let ls: Vec<String> = lines
            .iter()
            .map(|l| {
                let r = &l.rect;
                format!(
                    "{{\"box\":[{:.1},{:.1},{:.1},{:.1}],\"letter_height_px\":{:.2},\"text\":\"\"}}",
                    r.x * w as f32,
                    r.y * h as f32,
                    (r.x + r.width) * w as f32,
                    (r.y + r.height) * h as f32,
                    l.letter_height * h as f32
                )
            })
            .collect();
        out.push(format!("\"{id}\":{{\"ms\":{ms:.1},\"lines\":[{}]}}", ls.join(",")));
        eprintln!("{id} {ms:.0} ms {} lines", lines.len());
    }
    println!("{{{}}}", out.join(",\n"));
}
