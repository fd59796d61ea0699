// The entry point of src/native: re-exports what the rest of the server uses and holds no code.
// Each file here is the TypeScript twin of one file of crates/quiver-node/src, with its tests
// beside it (addon.ts for lib.rs, vector-index.ts for vector_index.rs, completions.ts for
// completions.rs, errors.ts for errors.rs); vector-index-contract.ts is the engine's contract.
export { native, type NativeBinding } from './addon.js';
export { NativeError, type NativeErrorCode, nativeErrorCode } from './errors.js';
export { createVectorIndex, loadVectorIndex } from './vector-index.js';
export { requestBegun, requestsBegunSoFar } from './inline-search.js';
