/**
 * Bench section: rerank of 1,000 documents × 1536 (cold vs cache hit, cosine loop, memory per
 * cached document). The work lives in scripts/bench/rerank.js (runnable alone); this file only
 * registers it with bench.js. It starts its own gateway per backend, in front of its own inline
 * embeddings upstream (the shared bench upstream serves chat only).
 */
'use strict';
module.exports = require('../rerank');
