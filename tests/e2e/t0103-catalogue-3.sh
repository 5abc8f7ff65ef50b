#!/bin/bash
# Catalogue shard 3 of 4 (see catalogue.sh).
SHARD=3 SHARDS=4
. "$(dirname "$0")/catalogue.sh"
