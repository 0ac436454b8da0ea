/// Decodes an 8-bit RGB or RGBA PNG into RGB.
pub fn load_png(path: &str) -> (Vec<u8>, usize, usize) {
    let dec = png::Decoder::new(std::io::BufReader::new(
        std::fs::File::open(path).expect("open png"),
    ));
    let mut r = dec.read_info().expect("png header");
    let mut buf = vec![0; r.output_buffer_size()];
    let info = r.next_frame(&mut buf).expect("png frame");
    buf.truncate(info.buffer_size());
    let rgb = match info.color_type {
        png::ColorType::Rgb => buf,
        png::ColorType::Rgba => buf
            .chunks_exact(4)
            .flat_map(|p| [p[0], p[1], p[2]])
            .collect(),
        other => panic!("unsupported PNG colour type {other:?}"),
    };
    (rgb, info.width as usize, info.height as usize)
}
