//! The session's files: mapping one (`data`), finding them as Pi does (`locate`), appending to
//! one under Pi's protocol and a lock (`append`), writing new files as temp + fsync + link
//! (`write`), with temp files an interrupted run removes (`temp`), reading only the end of
//! one (`tip`), and watching one Pi writes (`follow`).

pub mod append;
pub mod data;
pub mod follow;
pub mod locate;
pub mod temp;
pub mod tip;
pub mod write;
