//! Message ids kept under more than one user (the same id in two people's
//! transcripts: copied sessions, or one machine's logs under two names),
//! counted over (user, message id) pairs given a batch at a time. Each id
//! is held as its 64-bit hash (fixed seed) with its first user, so memory
//! follows the number of distinct ids, not their text; two people's
//! different ids sharing a hash (odds about 1 in 400,000 at ten million
//! ids) would count once too many. The team report and the import count
//! them so.

use foldhash::fast::FixedState;
use foldhash::HashMap;
use std::hash::BuildHasher;

/// The ids seen so far: each id's hash with its first user, or `SHARED`.
#[derive(Default)]
pub struct SharedIds {
    people: HashMap<String, u32>,
    owner: HashMap<u64, u32>,
}

const SHARED: u32 = u32::MAX;

impl SharedIds {
    /// Adds rows whose users are `users` and message ids `ids`. Rows come
    /// grouped by person: a person is looked up when it changes.
    pub fn add(&mut self, users: &[&str], ids: &[&str]) {
        let (mut last, mut person) = (None, 0);
        for (user, id) in users.iter().zip(ids) {
            if last != Some(*user) {
                let next = u32::try_from(self.people.len()).unwrap_or(SHARED - 1);
                person = *self.people.entry((*user).to_owned()).or_insert(next);
                last = Some(*user);
            }
            let first = self.owner.entry(hash(id)).or_insert(person);
            if *first != person {
                *first = SHARED;
            }
        }
    }

    /// How many ids are held by more than one user.
    pub fn count(&self) -> usize {
        self.owner.values().filter(|p| **p == SHARED).count()
    }

    /// Whether `id` is held by more than one user (or shares its hash with
    /// one that is).
    pub fn is_shared(&self, id: &str) -> bool {
        self.owner.get(&hash(id)) == Some(&SHARED)
    }
}

fn hash(id: &str) -> u64 {
    FixedState::with_seed(0).hash_one(id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_id_under_two_users_is_shared_and_a_users_own_copies_are_not() {
        let mut ids = SharedIds::default();
        ids.add(&["ana", "ana", "bo", "bo"], &["m1", "m2", "m2", "m3"]);
        ids.add(&["bo", "cy"], &["m3", "m1"]);
        assert_eq!(ids.count(), 2, "m1 and m2");
        assert!(ids.is_shared("m1") && ids.is_shared("m2"));
        assert!(!ids.is_shared("m3") && !ids.is_shared("m4"));
    }
}
