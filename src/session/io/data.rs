//! The bytes of a session: read into memory, or mapped from the file so that the page cache
//! serves them without a copy.

use std::fs::{File, FileType};
use std::ops::Deref;
use std::path::Path;

/// What a path is when it is not a regular file, in words.
fn kind_of(t: FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    if t.is_dir() {
        "a directory"
    } else {
        "not a regular file"
    }
}

/// The error for a path that is `t` where a regular file is needed.
pub fn not_regular(t: FileType) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidInput,
        format!("it is {}, not a regular file", kind_of(t)),
    )
}

/// Fails, without opening it, unless `path` (followed through symlinks) is a regular file: a
/// FIFO would block the open, and a device (`/dev/zero`) never ends.
pub fn check_regular(path: &Path) -> std::io::Result<()> {
    let t = std::fs::metadata(path)?.file_type();
    if t.is_file() { Ok(()) } else { Err(not_regular(t)) }
}

/// Opens `path` for reading, only if it is a regular file (checked before opening, and again
/// on what was opened).
pub fn open_regular(path: &Path) -> std::io::Result<File> {
    check_regular(path)?;
    let file = File::open(path)?;
    let t = file.metadata()?.file_type();
    if t.is_file() { Ok(file) } else { Err(not_regular(t)) }
}

/// Maps at least this large give back their pages as they are read ([`Data::release`]).
pub const RELEASE_FROM: usize = 512 << 20;

pub enum Data {
    Owned(Vec<u8>),
    Mapped(memmap2::Mmap),
}

impl Data {
    /// Maps `path` (files under 64 KiB are simply read). Only regular files are read.
    pub fn open(path: &Path) -> std::io::Result<Data> {
        Data::map_file(&open_regular(path)?)
    }

    /// Maps an open regular file from its start to its current end (files under 64 KiB are
    /// simply read).
    pub fn map_file(file: &File) -> std::io::Result<Data> {
        let len = file.metadata()?.len();
        if len < 64 * 1024 {
            let mut v = Vec::with_capacity(len as usize);
            std::io::Read::read_to_end(&mut &*file, &mut v)?;
            return Ok(Data::Owned(v));
        }
        // SAFETY: the map is read-only. Pi only ever appends to session files, and an
        // append beyond the mapped length is not visible through the map; pi-session's
        // own rewrites (repair) replace the file by renaming, which leaves this inode intact.
        let map = unsafe { memmap2::MmapOptions::new().len(len as usize).map(file)? };
        #[cfg(unix)]
        let _ = map.advise(memmap2::Advice::Sequential);
        Ok(Data::Mapped(map))
    }
}

impl Data {
    /// Gives back to the system the mapped pages wholly inside `from..to`: they stay in the
    /// page cache and are mapped again, from the file, if read later. A large file read once
    /// (to build the index) then no longer counts in the process's memory. Owned bytes are
    /// kept, and so are the pages of maps under [`RELEASE_FROM`]: mapping pages again costs
    /// time, which only pays off when the memory is large.
    pub fn release(&self, from: usize, to: usize) {
        #[cfg(unix)]
        if let Data::Mapped(m) = self
            && m.len() >= RELEASE_FROM
        {
            const PAGE: usize = 4096;
            let start = from.div_ceil(PAGE) * PAGE;
            let end = to.min(m.len()) / PAGE * PAGE;
            if end > start {
                // SAFETY: the map is a read-only view of the file; dropping its pages only
                // makes later reads fetch them again from the page cache or the file, with
                // the same content (see `map_file` on why the content does not change).
                let _ = unsafe { m.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, start, end - start) };
            }
        }
        let _ = (from, to);
    }

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
