#!/bin/bash
# Catalogue shard 0 of 4 (see catalogue.sh).
SHARD=0 SHARDS=4
. "$(dirname "$0")/catalogue.sh"
