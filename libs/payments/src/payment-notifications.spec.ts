import { Clock } from '@app/common';
import { AppConfig } from '@app/config';
import { PaymentNotifications } from './payment-notifications';
import type { PaymentsRepository } from './payments.repository';
import type { PaymentsService } from './payments.service';

describe('YooKassa notifications: address allowlist', () => {
  const config = AppConfig.fromEnv({
    YOOKASSA_SHOP_ID: '501234',
    YOOKASSA_SECRET_KEY: 'test_secret',
    YOOKASSA_NOTIFY_CIDRS: '185.71.76.0/27,2a02:5180::/32',
  });
  const looked: string[] = [];
  const payments = {
    assertEnabled: () => undefined,
    findByProviderId: (id: string) => {
      looked.push(id);
      return Promise.resolve(null);
    },
  } as unknown as PaymentsService;
  const notifications = new PaymentNotifications(payments, {} as PaymentsRepository, config, new Clock());
  const body = {
    type: 'notification',
    event: 'payment.succeeded',
    object: { id: '2d5a7e1f-000f-5000-9000-1b3c4d5e6f70' },
  };

  it('refuses other addresses with 403 before looking the payment up', async () => {
    for (const ip of ['127.0.0.1', '185.71.76.32', '::ffff:10.0.0.1', '2a03::1', undefined])
      await expect(notifications.receive(body, ip)).rejects.toMatchObject({ status: 403 });
    expect(looked).toEqual([]);
  });

  it("lets YooKassa's networks through (IPv4, IPv4-mapped, IPv6)", async () => {
    for (const ip of ['185.71.76.5', '::ffff:185.71.76.31', '2a02:5180::7'])
      await expect(notifications.receive(body, ip)).rejects.toMatchObject({ status: 404 });
    expect(looked).toHaveLength(3);
  });
});
