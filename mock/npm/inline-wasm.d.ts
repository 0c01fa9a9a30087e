/** The core's WebAssembly bytes inlined (base64 in the module), for `createMock({ wasm })` where core.wasm cannot be fetched. */
declare const wasm: Uint8Array;
export default wasm;
