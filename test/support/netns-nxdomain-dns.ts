// A DNS server that answers NXDOMAIN to every query, for capturing the tools' "Name or service not
// known" message. Run it inside ni-client only (`netns-topology.sh exec node ...`), where 127.0.0.1:53
// is private to the namespace; it never forwards anything.
import dgram from 'node:dgram';
import dnsPacket from 'dns-packet';

const socket = dgram.createSocket('udp4');
socket.on('message', (message, remote) => {
  const query = dnsPacket.decode(message);
  const answer = dnsPacket.encode({
    type: 'response',
    id: query.id ?? 0,
    flags: dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE | 3, // rcode 3: NXDOMAIN
    questions: query.questions ?? [],
  });
  socket.send(answer, remote.port, remote.address);
});
socket.bind(53, '127.0.0.1', () => console.log('nxdomain dns listening on 127.0.0.1:53'));
