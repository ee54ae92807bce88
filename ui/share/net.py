"""Which addresses of this machine phones on the home network can reach, and which peers count as local.

Nothing here sends a packet: the addresses come from the network interfaces (``SIOCGIFADDR``), and the
interface the default route leaves by is found by connecting a UDP socket, which only asks the kernel for
a route.
"""

from __future__ import annotations

import contextlib
import fcntl
import ipaddress
import socket
import struct

_SIOCGIFADDR = 0x8915
_ROUTE_PROBE = ("192.0.2.1", 9)  # TEST-NET-1 (RFC 5737): never routed anywhere; no packet is sent


def is_local_address(host: str) -> bool:
    """True for loopback and the private ranges of home networks (RFC 1918, link-local, IPv6 ULA)."""
    try:
        address = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    if address.is_loopback or address.is_link_local:
        return True
    if isinstance(address, ipaddress.IPv4Address):
        return any(address in net for net in _PRIVATE_V4)
    return address in _ULA_V6


_PRIVATE_V4 = tuple(ipaddress.ip_network(n) for n in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"))
_ULA_V6 = ipaddress.ip_network("fc00::/7")
LAN_RANGES = ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "169.254.0.0/16", "fc00::/7", "fe80::/10")
"""What the systemd drop-in allows besides loopback (deploy/tabletally-share.conf says the same)."""


def _interface_address(name: str) -> str | None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        try:
            packed = fcntl.ioctl(sock.fileno(), _SIOCGIFADDR, struct.pack("256s", name[:15].encode()))
        except OSError:
            return None
    return socket.inet_ntoa(packed[20:24])


def _default_route_address() -> str | None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock, contextlib.suppress(OSError):
        sock.connect(_ROUTE_PROBE)
        return str(sock.getsockname()[0])
    return None


def lan_addresses() -> list[str]:
    """This machine's IPv4 addresses on private networks, the one the default route uses first."""
    found: list[str] = []
    for _index, name in socket.if_nameindex():
        address = _interface_address(name)
        if address and address not in found and is_local_address(address) and not address.startswith("127."):
            found.append(address)
    preferred = _default_route_address()
    if preferred in found:
        found.remove(preferred)
        found.insert(0, preferred)
    return found


def page_url(address: str, port: int) -> str:
    host = f"[{address}]" if ":" in address else address
    return f"http://{host}:{port}/"
