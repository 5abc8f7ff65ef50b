#!/bin/bash
# Catalogue shard 2 of 4 (see catalogue.sh).
SHARD=2 SHARDS=4
. "$(dirname "$0")/catalogue.sh"
