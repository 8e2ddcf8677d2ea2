//! The bytes of a session: read into memory, or mapped from the file so that the page cache
//! serves them without a copy.

use std::fs::File;
use std::ops::Deref;
use std::path::Path;

pub enum Data {
    Owned(Vec<u8>),
    Mapped(memmap2::Mmap),
}

impl Data {
    /// Maps `path` (files under 64 KiB are simply read).
    pub fn open(path: &Path) -> std::io::Result<Data> {
        let file = File::open(path)?;
        let len = file.metadata()?.len();
        if len < 64 * 1024 {
            let mut v = Vec::with_capacity(len as usize);
            std::io::Read::read_to_end(&mut &file, &mut v)?;
            return Ok(Data::Owned(v));
        }
        // SAFETY: the map is read-only. Pi only ever appends to session files, and an
        // append beyond the mapped length is not visible through the map; pi-session's
        // own rewrites (repair) replace the file by renaming, which leaves this inode intact.
        let map = unsafe { memmap2::MmapOptions::new().len(len as usize).map(&file)? };
        #[cfg(unix)]
        let _ = map.advise(memmap2::Advice::Sequential);
        Ok(Data::Mapped(map))
    }
}

impl Data {
    /// The bytes as a vector (copied only when mapped).
    pub fn into_vec(self) -> Vec<u8> {
        match self {
            Data::Owned(v) => v,
            Data::Mapped(m) => m.to_vec(),
        }
    }
}

impl Deref for Data {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Data::Owned(v) => v,
            Data::Mapped(m) => m,
        }
    }
}

impl std::fmt::Debug for Data {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Data({} bytes)", self.len())
    }
}

impl From<Vec<u8>> for Data {
    fn from(v: Vec<u8>) -> Data {
        Data::Owned(v)
    }
}
