/**
 * The tensor types of ggml (`enum ggml_type`, GGML_TYPE_COUNT = 43 in the llama.cpp node-llama-cpp
 * bundles): elements per block and bytes per block, as `type_traits` in ggml.c gives them. Numbers
 * whose support llama.cpp removed (Q4_2, Q4_3, the Q4_0_x_y and IQ4_NL_x_y repacks) are absent: a
 * tensor of one of them is refused.
 */
export const GGML_TYPES: ReadonlyMap<number, { name: string; blockSize: number; typeSize: number }> = new Map(
  (
    [
      [0, 'F32', 1, 4],
      [1, 'F16', 1, 2],
      [2, 'Q4_0', 32, 18],
      [3, 'Q4_1', 32, 20],
      [6, 'Q5_0', 32, 22],
      [7, 'Q5_1', 32, 24],
      [8, 'Q8_0', 32, 34],
      [9, 'Q8_1', 32, 36],
      [10, 'Q2_K', 256, 84],
      [11, 'Q3_K', 256, 110],
      [12, 'Q4_K', 256, 144],
      [13, 'Q5_K', 256, 176],
      [14, 'Q6_K', 256, 210],
      [15, 'Q8_K', 256, 292],
      [16, 'IQ2_XXS', 256, 66],
      [17, 'IQ2_XS', 256, 74],
      [18, 'IQ3_XXS', 256, 98],
      [19, 'IQ1_S', 256, 50],
      [20, 'IQ4_NL', 32, 18],
      [21, 'IQ3_S', 256, 110],
      [22, 'IQ2_S', 256, 82],
      [23, 'IQ4_XS', 256, 136],
      [24, 'I8', 1, 1],
      [25, 'I16', 1, 2],
      [26, 'I32', 1, 4],
      [27, 'I64', 1, 8],
      [28, 'F64', 1, 8],
      [29, 'IQ1_M', 256, 56],
      [30, 'BF16', 1, 2],
      [34, 'TQ1_0', 256, 54],
      [35, 'TQ2_0', 256, 66],
      [39, 'MXFP4', 32, 17],
      [40, 'NVFP4', 64, 36],
      [41, 'Q1_0', 128, 18],
      [42, 'Q2_0', 64, 18],
    ] as const
  ).map(([id, name, blockSize, typeSize]) => [id, { name, blockSize, typeSize }]),
);

/** `GGML_MAX_DIMS`: llama.cpp refuses a tensor with more dimensions. */
export const GGML_MAX_DIMS = 4;
/** `GGML_MAX_NAME`: a tensor name must be shorter. */
export const GGML_MAX_NAME = 64;

/** GGUF metadata value types (`enum gguf_type`). */
export const GgufType = {
  Uint8: 0,
  Int8: 1,
  Uint16: 2,
  Int16: 3,
  Uint32: 4,
  Int32: 5,
  Float32: 6,
  Bool: 7,
  String: 8,
  Array: 9,
  Uint64: 10,
  Int64: 11,
  Float64: 12,
} as const;
export type GgufType = (typeof GgufType)[keyof typeof GgufType];

/** Bytes of one value of a fixed-size type; strings and arrays have none. */
export const GGUF_FIXED_SIZES: ReadonlyMap<number, number> = new Map([
  [GgufType.Uint8, 1],
  [GgufType.Int8, 1],
  [GgufType.Uint16, 2],
  [GgufType.Int16, 2],
  [GgufType.Uint32, 4],
  [GgufType.Int32, 4],
  [GgufType.Float32, 4],
  [GgufType.Bool, 1],
  [GgufType.Uint64, 8],
  [GgufType.Int64, 8],
  [GgufType.Float64, 8],
]);

export function isGgufType(value: number): value is GgufType {
  return Number.isInteger(value) && value >= 0 && value <= 12;
}
