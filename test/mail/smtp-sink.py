"""An SMTP server on loopback for the mail tests (aiosmtpd; scripts/smtp-sink.sh installs it).

Prints {"port": N} once listening, then one JSON line per message it accepted: the envelope
("mailFrom", "rcptTos"), the headers as decoded by Python's email package, and each MIME leaf part
(its content type and decoded text). Lines on stdin change how it
answers DATA from then on: "accept", "refuse" (554) or "hang" (no answer at all)."""
import asyncio, email, email.policy, json, sys
from aiosmtpd.smtp import SMTP

mode = 'accept'

class Sink:
    async def handle_DATA(self, server, session, envelope):
        if mode == 'refuse':
            return '554 5.7.1 refused by the test'
        if mode == 'hang':
            await asyncio.sleep(3600)
        msg = email.message_from_bytes(envelope.original_content, policy=email.policy.default)
        print(json.dumps({
            'mailFrom': envelope.mail_from, 'rcptTos': envelope.rcpt_tos,
            'headers': {k: str(v) for k, v in msg.items()},
            'contentType': msg.get_content_type(),
            'parts': [{'type': p.get_content_type(), 'charset': p.get_content_charset(), 'content': p.get_content()}
                      for p in msg.walk() if not p.is_multipart()],
        }), flush=True)
        return '250 OK'

async def main():
    global mode
    loop = asyncio.get_running_loop()
    server = await loop.create_server(lambda: SMTP(Sink(), hostname='sink.test'), '127.0.0.1', 0)
    print(json.dumps({'port': server.sockets[0].getsockname()[1]}), flush=True)
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    while line := await reader.readline():
        mode = line.decode().strip()
        print(json.dumps({'mode': mode}), flush=True)

asyncio.run(main())
