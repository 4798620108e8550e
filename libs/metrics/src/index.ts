export { MetricsEndpoint, type MetricsEndpointSettings } from './metrics-endpoint';
export { MetricsServer } from './metrics-server';
export { serviceRegistry } from './service-registry';
export { volumeFreeBytesGauge } from './volume-gauge';
