import { Module } from '@nestjs/common';
import type { Logger } from '@weft/logging';
import type { Redis } from 'ioredis';
import { GATEWAY_CONFIG, type GatewaySettings } from '../config';
import { LOGGER, REDIS } from '../infra/tokens';
import { BackupController } from './backup.controller';
import { BackupWriter } from './backup.service';
import { migrateAtStart } from './migrate-at-start';
import { RestoreLock } from './restore-lock';
import { RestoreUpload } from './restore-upload';
import { RestoreRunner } from './restore.service';
import { StagingFolders } from './staging-folders';
import { WorkspaceArchives } from './workspace-archives';

/** Resolved once the store is at this build's format; its value is that version. */
export const STORAGE_READY = Symbol('STORAGE_READY');

/**
 * Migrates the store while the gateway is built: an async provider runs before any module's
 * onModuleInit, so no queue worker or sweep touches Redis until the format is known, and a store
 * newer than this build makes `createGatewayApp` (and so the process) fail with the reason.
 * Also the admin's backup and restore.
 */
@Module({
  controllers: [BackupController],
  providers: [
    {
      provide: STORAGE_READY,
      inject: [REDIS, GATEWAY_CONFIG, LOGGER],
      useFactory: (redis: Redis, config: GatewaySettings, logger: Logger) => migrateAtStart(redis, config.REDIS_KEY_PREFIX, logger),
    },
    WorkspaceArchives,
    BackupWriter,
    RestoreRunner,
    RestoreLock,
    RestoreUpload,
    StagingFolders,
  ],
  exports: [STORAGE_READY],
})
export class StorageModule {}
