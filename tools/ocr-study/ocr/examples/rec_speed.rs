//! Times the recogniser with a symbolic width against plans optimised for one width, and the
//! detector at a few sizes (one thread).
use std::time::Instant;
use tract_onnx::prelude::*;

fn main() -> TractResult<()> {
    let rec_bytes = std::fs::read("ocr/models/rec.onnx")?;
    let det_bytes = std::fs::read("ocr/models/det.onnx")?;
    let load = |b: &[u8]| {
        tract_onnx::onnx()
            .with_ignore_value_info(true)
            .with_ignore_output_shapes(true)
            .model_for_read(&mut std::io::Cursor::new(b))
    };
    let base = load(&rec_bytes)?;
    let mut sym = base.clone();
    let w = sym.sym("W");
    sym.set_input_fact(
        0,
        f32::fact(tract_onnx::tract_core::dims!(1, 3, 48, w)).into(),
    )?;
    let t = Instant::now();
    let sym = sym.into_optimized()?.into_runnable()?;
    eprintln!(
        "rec symbolic: optimise {:.0} ms",
        t.elapsed().as_secs_f64() * 1e3
    );
    for width in [
        if std::env::args().count() > 1 {
            0usize
        } else {
            160
        },
        320,
        640,
        1056,
    ]
    .into_iter()
    .filter(|&w| w > 0 && std::env::args().count() == 1)
    {
        let x = Tensor::zero::<f32>(&[1, 3, 48, width])?;
        sym.run(tvec!(x.clone().into()))?;
        let t = Instant::now();
        sym.run(tvec!(x.clone().into()))?;
        let s_ms = t.elapsed().as_secs_f64() * 1e3;
        let mut m = base.clone();
        m.set_input_fact(0, f32::fact([1, 3, 48, width]).into())?;
        let t = Instant::now();
        let p = m.into_optimized()?.into_runnable()?;
        let opt_ms = t.elapsed().as_secs_f64() * 1e3;
        p.run(tvec!(x.clone().into()))?;
        let t = Instant::now();
        p.run(tvec!(x.into()))?;
        eprintln!(
            "rec w={width}: symbolic {s_ms:.0} ms, concrete {:.0} ms (optimise {opt_ms:.0} ms)",
            t.elapsed().as_secs_f64() * 1e3
        );
    }
    let det = load(&det_bytes)?;
    for (h, w) in [
        (960usize, 672usize),
        (960, 704),
        (672, 960),
        (736, 960),
        (640, 448),
        (736, 512),
    ] {
        let mut m = det.clone();
        m.set_input_fact(0, f32::fact([1, 3, h, w]).into())?;
        let t = Instant::now();
        let p = m.into_optimized()?.into_runnable()?;
        let opt_ms = t.elapsed().as_secs_f64() * 1e3;
        let data: Vec<f32> = (0..3 * h * w)
            .map(|i| ((i * 7919 % 255) as f32 / 127.5) - 1.0)
            .collect();
        let x = Tensor::from_shape(&[1, 3, h, w], &data)?;
        p.run(tvec!(x.clone().into()))?;
        let mut best = f64::MAX;
        for _ in 0..3 {
            let t = Instant::now();
            p.run(tvec!(x.clone().into()))?;
            best = best.min(t.elapsed().as_secs_f64() * 1e3);
        }
        eprintln!("det {h}x{w}: best of 3 {best:.0} ms (optimise {opt_ms:.0} ms)");
    }
    Ok(())
}
