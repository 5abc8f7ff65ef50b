#!/bin/bash
# Catalogue shard 1 of 4 (see catalogue.sh).
SHARD=1 SHARDS=4
. "$(dirname "$0")/catalogue.sh"
