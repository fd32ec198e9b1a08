import 'reflect-metadata';
import * as http from 'node:http';
import { AddressInfo } from 'node:net';
import { Controller, Get, INestApplication, Module, NestApplicationOptions, Req, Res } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { Application, Request, Response } from 'express';
import { GatewayExpressAdapter } from './http-adapter';

@Controller()
class ProbeController {
  @Get('probe')
  probe(@Req() req: Request, @Res() res: Response): void {
    // Express's request and response methods, and req.app, as every handler uses them
    res.status(201).json({ header: req.get('x-probe'), app: typeof req.app?.get === 'function' });
  }
}

@Module({ controllers: [ProbeController] })
class ProbeModule {}

interface Birth {
  req: object | null;
  res: object | null;
  isIncoming: boolean;
  isResponse: boolean;
}

async function start(options: NestApplicationOptions = {}): Promise<{ app: INestApplication; url: string }> {
  const app = await NestFactory.create(ProbeModule, new GatewayExpressAdapter(), { logger: false, ...options });
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as AddressInfo;
  return { app, url: `http://127.0.0.1:${port}` };
}

/** The prototypes of the next request and response as the HTTP server made them, before Express saw them. */
function recordBirth(app: INestApplication): Birth {
  const birth: Birth = { req: null, res: null, isIncoming: false, isResponse: false };
  (app.getHttpServer() as http.Server).prependOnceListener('request', (req, res) => {
    birth.req = Object.getPrototypeOf(req) as object;
    birth.res = Object.getPrototypeOf(res) as object;
    birth.isIncoming = req instanceof http.IncomingMessage;
    birth.isResponse = res instanceof http.ServerResponse;
  });
  return birth;
}

describe('GatewayExpressAdapter', () => {
  let app: INestApplication | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  it("makes each request and response with Express's prototypes, so Express never swaps them", async () => {
    const started = await start();
    app = started.app;
    const express = app.getHttpAdapter().getInstance() as Application & { request: object; response: object };
    const birth = recordBirth(app);

    const answer = await fetch(`${started.url}/probe`, { headers: { 'x-probe': 'yes' } });

    expect(answer.status).toBe(201);
    expect(await answer.json()).toEqual({ header: 'yes', app: true });
    expect(birth.req).toBe(express.request);
    expect(birth.res).toBe(express.response);
    expect(birth.isIncoming).toBe(true);
    expect(birth.isResponse).toBe(true);
  });

  it("builds Nest's own server for the options it does not cover (forceCloseConnections)", async () => {
    const started = await start({ forceCloseConnections: true });
    app = started.app;
    const birth = recordBirth(app);

    const answer = await fetch(`${started.url}/probe`, { headers: { 'x-probe': 'no' } });

    expect(await answer.json()).toEqual({ header: 'no', app: true });
    expect(birth.req).toBe(http.IncomingMessage.prototype);
    expect(birth.res).toBe(http.ServerResponse.prototype);
  });
});
