mod from_message;

pub use from_message::from_message;
