//! ZIP archives read under limits, for what users send zipped: the photos of an inventory
//! import, and XLSX workbooks (a ZIP of XML files).
//!
//! A ZIP can make a reader do far more work than its size suggests, so nothing is trusted:
//!
//! - the number of entries is read from the archive's end record *before* its directory is
//!   parsed (the directory of a 200 MB archive can name millions of empty files, each costing
//!   memory once parsed);
//! - the sizes the directory declares are added up and checked before anything is inflated,
//!   and, where asked, an entry declaring more than [`Limits::max_ratio`] times its compressed
//!   size is refused (a photo or an XLSX never compresses that well; zeros do);
//! - every entry is inflated through a counter that stops one byte past its declared size, so
//!   an entry that lies about its size (a "ZIP bomb": a small file inflating to gigabytes) is
//!   refused having inflated at most what it declared.
//!
//! Entry names are only compared with the names a file gives (by their last component,
//! Unicode-normalised, exactly then ignoring case), never used as paths: nothing is written
//! under an entry's name, so `../` in an archive can reach nothing. Reading is blocking: call
//! it from the blocking pool.

use std::collections::HashMap;
use std::io::{self, Read, Seek, SeekFrom, Write};

use unicode_normalization::UnicodeNormalization;
use zip::ZipArchive;

/// What an archive may hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Most entries (files and folders).
    pub max_entries: u64,
    /// Most bytes all entries may declare together, uncompressed.
    pub max_total: u64,
    /// Most times its compressed size an entry of more than [`RATIO_FLOOR`] bytes may inflate
    /// to; `None`: no such rule.
    pub max_ratio: Option<u64>,
}

/// Entries at most this large are never judged on their compression ratio (a tiny text file
/// of spaces compresses well and harms nothing).
pub const RATIO_FLOOR: u64 = 1 << 20;

/// Why an archive is refused as a whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum ArchiveError {
    /// Not a ZIP archive, or a broken one.
    #[error("not a readable ZIP archive")]
    Unreadable,
    /// More entries than [`Limits::max_entries`].
    #[error("the archive has too many entries")]
    TooManyEntries,
    /// It declares more than [`Limits::max_total`], an entry inflates far more than files do,
    /// or an entry inflates past the size it declared.
    #[error("the archive inflates to more than allowed")]
    TooLarge,
}

/// Why one entry could not be read.
#[derive(Debug, thiserror::Error)]
pub enum EntryError {
    /// Corrupt data, a wrong checksum, encryption or a compression method we do not read.
    #[error("the entry cannot be read")]
    Unreadable,
    /// The entry inflates past the size it declared: the whole archive is suspect.
    #[error("the entry inflates past its declared size")]
    Lies,
    /// Writing what was read failed.
    #[error("cannot write the entry: {0}")]
    Write(#[source] io::Error),
}

/// An entry found by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lookup {
    /// Exactly one file of that name.
    Found(EntryId),
    /// No file of that name.
    Missing,
    /// Several files of that name, in different folders.
    Ambiguous,
}

/// A file entry of an [`Archive`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct EntryId(usize);

#[derive(Debug)]
struct Entry {
    /// The index in the archive's directory.
    index: usize,
    /// The name in the archive, whole.
    path: String,
    /// What it declares, uncompressed.
    size: u64,
}

/// An opened archive whose directory passed the [`Limits`].
pub struct Archive<R> {
    zip: ZipArchive<R>,
    files: Vec<Entry>,
    /// File name (last component, NFC) → positions in `files`.
    by_name: HashMap<String, Vec<usize>>,
    /// The same, lowercased.
    by_folded: HashMap<String, Vec<usize>>,
}

impl<R> std::fmt::Debug for Archive<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Archive")
            .field("files", &self.files.len())
            .finish()
    }
}

/// The last component of a path (either separator), Unicode-normalised (NFC): macOS writes
/// decomposed accents in archives, spreadsheets composed ones.
pub fn file_name(path: &str) -> String {
    path.rsplit(['/', '\\'])
        .next()
        .unwrap_or(path)
        .nfc()
        .collect()
}

impl<R: Read + Seek> Archive<R> {
    /// Opens an archive and checks its directory against `limits` (entries, declared sizes,
    /// ratios) without inflating anything.
    pub fn open(mut reader: R, limits: &Limits) -> Result<Self, ArchiveError> {
        if declared_entries(&mut reader)? > limits.max_entries {
            return Err(ArchiveError::TooManyEntries);
        }
        reader
            .seek(SeekFrom::Start(0))
            .map_err(|_| ArchiveError::Unreadable)?;
        let mut zip = ZipArchive::new(reader).map_err(|_| ArchiveError::Unreadable)?;
        if zip.len() as u64 > limits.max_entries {
            return Err(ArchiveError::TooManyEntries);
        }
        let mut files = Vec::new();
        let mut total = 0u64;
        for index in 0..zip.len() {
            let entry = zip
                .by_index_raw(index)
                .map_err(|_| ArchiveError::Unreadable)?;
            let size = entry.size();
            total = total.saturating_add(size);
            if total > limits.max_total {
                return Err(ArchiveError::TooLarge);
            }
            if let Some(ratio) = limits.max_ratio
                && size > RATIO_FLOOR
                && size / entry.compressed_size().max(1) > ratio
            {
                return Err(ArchiveError::TooLarge);
            }
            if entry.is_file() {
                let path = entry.name().map_err(|_| ArchiveError::Unreadable)?;
                files.push(Entry {
                    index,
                    path: path.into_owned(),
                    size,
                });
            }
        }
        let mut by_name: HashMap<String, Vec<usize>> = HashMap::new();
        let mut by_folded: HashMap<String, Vec<usize>> = HashMap::new();
        for (position, entry) in files.iter().enumerate() {
            let name = file_name(&entry.path);
            by_folded
                .entry(name.to_lowercase())
                .or_default()
                .push(position);
            by_name.entry(name).or_default().push(position);
        }
        Ok(Self {
            zip,
            files,
            by_name,
            by_folded,
        })
    }

    /// The file a spreadsheet names (`site.jpg`, or a path whose last component is taken):
    /// exactly that name, else the same name ignoring case.
    pub fn find(&self, name: &str) -> Lookup {
        let name = file_name(name.trim());
        let found = match self.by_name.get(&name) {
            Some(exact) => Some(exact),
            None => self.by_folded.get(&name.to_lowercase()),
        };
        match found.map(Vec::as_slice) {
            Some([one]) => Lookup::Found(EntryId(*one)),
            Some([_, _, ..]) => Lookup::Ambiguous,
            _ => Lookup::Missing,
        }
    }

    /// Every file's whole name in the archive and the size it declares (trustworthy once
    /// [`Archive::check_all`] passed: no entry inflates past it).
    pub fn files(&self) -> impl Iterator<Item = (&str, u64)> {
        self.files.iter().map(|f| (f.path.as_str(), f.size))
    }

    /// The uncompressed size an entry declares.
    pub fn size(&self, id: EntryId) -> u64 {
        self.files[id.0].size
    }

    /// The entry's name in the archive, without its folders.
    pub fn name(&self, id: EntryId) -> String {
        file_name(&self.files[id.0].path)
    }

    /// Inflates an entry into `out`, stopping one byte past its declared size
    /// ([`EntryError::Lies`]); returns the bytes written.
    pub fn copy_to(&mut self, id: EntryId, out: &mut impl Write) -> Result<u64, EntryError> {
        let entry = &self.files[id.0];
        let declared = entry.size;
        let file = self
            .zip
            .by_index(entry.index)
            .map_err(|_| EntryError::Unreadable)?;
        let mut limited = file.take(declared.saturating_add(1));
        let mut buf = vec![0; 64 << 10];
        let mut written = 0u64;
        loop {
            let n = match limited.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
                Err(_) => return Err(EntryError::Unreadable),
            };
            written += n as u64;
            if written > declared {
                return Err(EntryError::Lies);
            }
            out.write_all(&buf[..n]).map_err(EntryError::Write)?;
        }
        Ok(written)
    }

    /// Inflates every file, discarding the bytes: checks that none lies about its size (the
    /// total then stays within [`Limits::max_total`]) and that all can be read.
    pub fn check_all(&mut self) -> Result<(), ArchiveError> {
        for position in 0..self.files.len() {
            match self.copy_to(EntryId(position), &mut io::sink()) {
                Ok(_) => {}
                Err(EntryError::Lies) => return Err(ArchiveError::TooLarge),
                Err(_) => return Err(ArchiveError::Unreadable),
            }
        }
        Ok(())
    }
}

/// The number of entries the archive's end record declares (the ZIP64 one when the classic
/// record says to look there), read from the end of the file before anything else.
fn declared_entries<R: Read + Seek>(reader: &mut R) -> Result<u64, ArchiveError> {
    const END: [u8; 4] = [0x50, 0x4b, 0x05, 0x06];
    const LOCATOR: [u8; 4] = [0x50, 0x4b, 0x06, 0x07];
    const END64: [u8; 4] = [0x50, 0x4b, 0x06, 0x06];
    let unreadable = |_| ArchiveError::Unreadable;
    let len = reader.seek(SeekFrom::End(0)).map_err(unreadable)?;
    // The end record (22 bytes) and its comment (at most 65,535), and the ZIP64 locator (20)
    // right before it.
    let tail_len = len.min(20 + 22 + 65_535);
    reader
        .seek(SeekFrom::Start(len - tail_len))
        .map_err(unreadable)?;
    let mut tail = vec![0; usize::try_from(tail_len).map_err(|_| ArchiveError::Unreadable)?];
    reader.read_exact(&mut tail).map_err(unreadable)?;
    let at = (0..=tail.len().saturating_sub(22))
        .rev()
        .find(|&i| tail[i..].starts_with(&END))
        .ok_or(ArchiveError::Unreadable)?;
    let entries = u16::from_le_bytes([tail[at + 10], tail[at + 11]]);
    if entries != u16::MAX {
        return Ok(entries.into());
    }
    // A count too large for the classic record: the ZIP64 end record has it, found through
    // the locator. Without one, the archive has at least 65,535 entries, which no limit allows.
    let Some(locator) = at.checked_sub(20).map(|start| &tail[start..at]) else {
        return Ok(u64::MAX);
    };
    if !locator.starts_with(&LOCATOR) {
        return Ok(u64::MAX);
    }
    let offset = u64::from_le_bytes(
        locator[8..16]
            .try_into()
            .map_err(|_| ArchiveError::Unreadable)?,
    );
    reader.seek(SeekFrom::Start(offset)).map_err(unreadable)?;
    let mut record = [0u8; 40];
    reader.read_exact(&mut record).map_err(unreadable)?;
    if !record.starts_with(&END64) {
        return Err(ArchiveError::Unreadable);
    }
    Ok(u64::from_le_bytes(
        record[32..40]
            .try_into()
            .map_err(|_| ArchiveError::Unreadable)?,
    ))
}

#[cfg(test)]
mod tests {
    use std::io::Cursor;

    use super::*;
    use zip::write::SimpleFileOptions;

    const ROOMY: Limits = Limits {
        max_entries: 100,
        max_total: 64 << 20,
        max_ratio: Some(100),
    };

    fn zip_of(entries: &[(&str, &[u8])]) -> Vec<u8> {
        let mut writer = zip::ZipWriter::new(Cursor::new(Vec::new()));
        for (name, data) in entries {
            writer
                .start_file(*name, SimpleFileOptions::default())
                .unwrap();
            writer.write_all(data).unwrap();
        }
        writer.finish().unwrap().into_inner()
    }

    #[test]
    fn files_are_found_by_their_name_whatever_their_folder() {
        let bytes = zip_of(&[
            ("photos/Gare.JPG", b"a"),
            ("../../etc/evil.png", b"b"),
            ("a/twice.jpg", b"c"),
            ("b/twice.jpg", b"d"),
            ("Cafe\u{301}.jpg", b"e"),
        ]);
        let mut archive = Archive::open(Cursor::new(bytes), &ROOMY).unwrap();
        let Lookup::Found(gare) = archive.find("gare.jpg") else {
            panic!("found ignoring case")
        };
        let mut out = Vec::new();
        archive.copy_to(gare, &mut out).unwrap();
        assert_eq!(out, b"a");
        assert_eq!(archive.name(gare), "Gare.JPG");
        assert!(matches!(archive.find("evil.png"), Lookup::Found(_)));
        assert!(matches!(
            archive.find("C:\\Users\\me\\evil.png"),
            Lookup::Found(_)
        ));
        assert_eq!(archive.find("twice.jpg"), Lookup::Ambiguous);
        assert_eq!(archive.find("absent.jpg"), Lookup::Missing);
        // Composed in the spreadsheet, decomposed in the archive.
        assert!(matches!(archive.find("Café.jpg"), Lookup::Found(_)));
    }

    #[test]
    fn limits_are_checked_before_anything_is_inflated() {
        let many: Vec<(String, Vec<u8>)> =
            (0..5).map(|i| (format!("{i}.txt"), vec![b'x'])).collect();
        let entries: Vec<(&str, &[u8])> = many
            .iter()
            .map(|(n, d)| (n.as_str(), d.as_slice()))
            .collect();
        let bytes = zip_of(&entries);
        let few = Limits {
            max_entries: 4,
            ..ROOMY
        };
        assert_eq!(
            Archive::open(Cursor::new(bytes.clone()), &few).unwrap_err(),
            ArchiveError::TooManyEntries
        );
        let small = Limits {
            max_total: 4,
            ..ROOMY
        };
        assert_eq!(
            Archive::open(Cursor::new(bytes), &small).unwrap_err(),
            ArchiveError::TooLarge
        );
        // Eight megabytes of zeros deflate to a few kilobytes: a bomb's ratio.
        let zeros = vec![0u8; 8 << 20];
        let bomb = zip_of(&[("zeros.bin", &zeros)]);
        assert!(bomb.len() < 100_000);
        assert_eq!(
            Archive::open(Cursor::new(bomb.clone()), &ROOMY).unwrap_err(),
            ArchiveError::TooLarge
        );
        let workbook = Limits {
            max_ratio: None,
            ..ROOMY
        };
        Archive::open(Cursor::new(bomb), &workbook)
            .unwrap()
            .check_all()
            .unwrap();
        assert_eq!(
            Archive::open(Cursor::new(b"not a zip".to_vec()), &ROOMY).unwrap_err(),
            ArchiveError::Unreadable
        );
    }

    /// The directory says 1,000 bytes; the data inflates to a megabyte: reading stops at 1,001.
    #[test]
    fn an_entry_inflating_past_its_declared_size_is_refused() {
        let data = vec![7u8; 1 << 20];
        let mut bytes = zip_of(&[("big.bin", &data)]);
        let size = u32::try_from(data.len()).unwrap().to_le_bytes();
        let lie = 1000u32.to_le_bytes();
        // The size is written in the local header (offset 22) and the directory entry (24).
        let mut patched = 0;
        for at in 0..bytes.len() - 4 {
            let local = bytes[at..].starts_with(&[0x50, 0x4b, 0x03, 0x04]);
            let central = bytes[at..].starts_with(&[0x50, 0x4b, 0x01, 0x02]);
            let field = if local {
                at + 22
            } else if central {
                at + 24
            } else {
                continue;
            };
            assert_eq!(bytes[field..field + 4], size);
            bytes[field..field + 4].copy_from_slice(&lie);
            patched += 1;
        }
        assert_eq!(patched, 2);
        let open = Limits {
            max_ratio: None,
            ..ROOMY
        };
        let mut archive = Archive::open(Cursor::new(bytes.clone()), &open).unwrap();
        let Lookup::Found(id) = archive.find("big.bin") else {
            panic!("listed")
        };
        let mut out = Vec::new();
        assert!(matches!(
            archive.copy_to(id, &mut out),
            Err(EntryError::Lies) | Err(EntryError::Unreadable)
        ));
        assert!(out.len() <= 1000, "stopped at the declared size");
        let mut archive = Archive::open(Cursor::new(bytes), &open).unwrap();
        assert!(archive.check_all().is_err());
    }
}
