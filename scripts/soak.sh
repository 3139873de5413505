#!/bin/sh
# The full soak of the dashboard, on loopback only: 50 transcripts appended to
# for 60 s while `cachewise serve` ingests them and 20 clients read every
# route; then the served store must equal a cold ingest of the final tree.
# Prints the server's memory at the end. Takes about two minutes.
set -eu
cd "$(dirname "$0")/.."
exec cargo test --test suite -- --ignored --nocapture soak::soak_fifty_transcripts_twenty_clients_sixty_seconds
