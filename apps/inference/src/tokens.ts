export const INFERENCE_CONFIG = Symbol('InferenceConfig');
export const MODELS_CONFIG = Symbol('ModelsConfig');
export const LOGGER = Symbol('Logger');
export const INFERENCE_DRIVERS = Symbol('InferenceDrivers');
