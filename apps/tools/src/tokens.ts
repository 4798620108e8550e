/** DI tokens for values that are not classes. */
export const TOOLS_CONFIG = Symbol('TOOLS_CONFIG');
export const TOOLS_LOGGER = Symbol('TOOLS_LOGGER');
