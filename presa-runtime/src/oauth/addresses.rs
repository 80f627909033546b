//! What kind of place an IP address is: the public internet, this
//! machine, a private network, a link-local segment, or no server's at
//! all. The OAuth client asks this of every address a remote server's
//! URLs lead to (`destinations`).
//!
//! The rules, in order:
//!
//! 1. an IPv6 address that carries an IPv4 one is judged by the IPv4
//!    address it reaches: IPv4-mapped (`::ffff:10.0.0.1`), the NAT64
//!    well-known prefix (`64:ff9b::/96`, RFC 6052) and 6to4 (`2002::/16`,
//!    RFC 3056), so that no spelling of `10.0.0.1` passes where
//!    `10.0.0.1` does not;
//! 2. a special-purpose range (the IANA registries of RFC 6890) is
//!    loopback, private, link-local, or not a server's address
//!    (unspecified, multicast, broadcast, documentation, reserved);
//! 3. any other IPv4 address is public; an IPv6 address is public only in
//!    global unicast (`2000::/3`), everything outside it is reserved.

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// What kind of place an address is, for deciding whether to connect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AddressKind {
    /// On the public internet.
    Public,
    /// This machine (`127.0.0.0/8`, `::1`).
    Loopback,
    /// A private network: RFC 1918, shared address space (carrier-grade
    /// NAT, and overlay networks such as Tailscale), unique-local IPv6.
    Private,
    /// A link-local segment (`169.254.0.0/16`, `fe80::/10`), where cloud
    /// metadata services answer.
    LinkLocal,
    /// No server's address: unspecified, multicast, broadcast,
    /// documentation, reserved.
    NotAServer,
}

impl AddressKind {
    /// The kind with its article, for messages: "a private-network address".
    pub fn described(self) -> &'static str {
        match self {
            AddressKind::Public => "a public address",
            AddressKind::Loopback => "a loopback address (this machine)",
            AddressKind::Private => "a private-network address",
            AddressKind::LinkLocal => "a link-local address (where cloud metadata services answer)",
            AddressKind::NotAServer => "not a server's address",
        }
    }
}

/// An address's kind, the range that makes it so, and the IPv4 address
/// it reaches when it is an IPv6 address carrying one (rule 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Classified {
    pub kind: AddressKind,
    /// The range, as the registries name it: `10.0.0.0/8`.
    pub range: &'static str,
    /// How an IPv6 address carries an IPv4 one, and which.
    pub carries: Option<(&'static str, Ipv4Addr)>,
}

impl fmt::Display for Classified {
    /// "a private-network address (10.0.0.0/8, by way of NAT64 to 10.0.0.1)".
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({}", self.kind.described(), self.range)?;
        if let Some((how, v4)) = self.carries {
            write!(f, ", by way of {how} to {v4}")?;
        }
        f.write_str(")")
    }
}

/// The kind of `ip` (the module's rules).
pub(crate) fn classify(ip: IpAddr) -> Classified {
    match ip {
        IpAddr::V4(v4) => classify_v4(v4),
        IpAddr::V6(v6) => classify_v6(v6),
    }
}

/// The IPv4 ranges that are not public, most specific first.
const V4_RANGES: &[([u8; 4], u32, AddressKind, &str)] = &[
    (
        [0, 0, 0, 0],
        8,
        AddressKind::NotAServer,
        "0.0.0.0/8, \"this network\"",
    ),
    ([127, 0, 0, 0], 8, AddressKind::Loopback, "127.0.0.0/8"),
    ([10, 0, 0, 0], 8, AddressKind::Private, "10.0.0.0/8"),
    ([172, 16, 0, 0], 12, AddressKind::Private, "172.16.0.0/12"),
    ([192, 168, 0, 0], 16, AddressKind::Private, "192.168.0.0/16"),
    (
        [100, 64, 0, 0],
        10,
        AddressKind::Private,
        "100.64.0.0/10, shared address space",
    ),
    (
        [198, 18, 0, 0],
        15,
        AddressKind::Private,
        "198.18.0.0/15, benchmarking",
    ),
    (
        [169, 254, 0, 0],
        16,
        AddressKind::LinkLocal,
        "169.254.0.0/16",
    ),
    (
        [192, 0, 0, 0],
        24,
        AddressKind::NotAServer,
        "192.0.0.0/24, IETF protocol assignments",
    ),
    (
        [192, 0, 2, 0],
        24,
        AddressKind::NotAServer,
        "192.0.2.0/24, documentation",
    ),
    (
        [198, 51, 100, 0],
        24,
        AddressKind::NotAServer,
        "198.51.100.0/24, documentation",
    ),
    (
        [203, 0, 113, 0],
        24,
        AddressKind::NotAServer,
        "203.0.113.0/24, documentation",
    ),
    (
        [192, 88, 99, 0],
        24,
        AddressKind::NotAServer,
        "192.88.99.0/24, deprecated 6to4 relays",
    ),
    (
        [255, 255, 255, 255],
        32,
        AddressKind::NotAServer,
        "255.255.255.255, broadcast",
    ),
    (
        [224, 0, 0, 0],
        4,
        AddressKind::NotAServer,
        "224.0.0.0/4, multicast",
    ),
    (
        [240, 0, 0, 0],
        4,
        AddressKind::NotAServer,
        "240.0.0.0/4, reserved",
    ),
];

fn classify_v4(ip: Ipv4Addr) -> Classified {
    let bits = u32::from(ip);
    let found = V4_RANGES
        .iter()
        .find(|(net, len, _, _)| within(bits.into(), u32::from_be_bytes(*net).into(), *len, 32));
    let (kind, range) = found.map_or((AddressKind::Public, "the public internet"), |r| (r.2, r.3));
    Classified {
        kind,
        range,
        carries: None,
    }
}

/// The IPv6 ranges that are not public, most specific first; those that
/// carry an IPv4 address are rule 1's, in `classify_v6`.
const V6_RANGES: &[(u128, u32, AddressKind, &str)] = &[
    (0, 128, AddressKind::NotAServer, "::, unspecified"),
    (1, 128, AddressKind::Loopback, "::1"),
    (
        0x0064_ff9b_0001 << 80,
        48,
        AddressKind::Private,
        "64:ff9b:1::/48, local-use NAT64",
    ),
    (
        0x0100 << 112,
        64,
        AddressKind::NotAServer,
        "100::/64, discard-only",
    ),
    (
        0x2001_0db8 << 96,
        32,
        AddressKind::NotAServer,
        "2001:db8::/32, documentation",
    ),
    (
        0x3fff << 112,
        20,
        AddressKind::NotAServer,
        "3fff::/20, documentation",
    ),
    (
        0x2001 << 112,
        32,
        AddressKind::NotAServer,
        "2001::/32, Teredo",
    ),
    (
        0xfc00 << 112,
        7,
        AddressKind::Private,
        "fc00::/7, unique-local",
    ),
    (0xfe80 << 112, 10, AddressKind::LinkLocal, "fe80::/10"),
    (
        0xfec0 << 112,
        10,
        AddressKind::Private,
        "fec0::/10, deprecated site-local",
    ),
    (
        0xff00 << 112,
        8,
        AddressKind::NotAServer,
        "ff00::/8, multicast",
    ),
    (
        0,
        96,
        AddressKind::NotAServer,
        "::/96, deprecated IPv4-compatible",
    ),
];

fn classify_v6(ip: Ipv6Addr) -> Classified {
    let bits = u128::from(ip);
    // Rule 1: the IPv4 address it reaches decides.
    let carried = if let Some(v4) = ip.to_ipv4_mapped() {
        Some(("IPv4 mapping", v4))
    } else if within(bits, 0x0064_ff9b << 96, 96, 128) {
        Some(("NAT64", Ipv4Addr::from(bits as u32)))
    } else if within(bits, 0x2002 << 112, 16, 128) {
        Some(("6to4", Ipv4Addr::from((bits >> 80) as u32)))
    } else {
        None
    };
    if let Some((how, v4)) = carried {
        return Classified {
            carries: Some((how, v4)),
            ..classify_v4(v4)
        };
    }
    let found = V6_RANGES
        .iter()
        .find(|(net, len, _, _)| within(bits, *net, *len, 128));
    let (kind, range) = match found {
        Some(range) => (range.2, range.3),
        None if within(bits, 0x2000 << 112, 3, 128) => (AddressKind::Public, "the public internet"),
        None => (AddressKind::NotAServer, "outside global unicast 2000::/3"),
    };
    Classified {
        kind,
        range,
        carries: None,
    }
}

/// Whether the `width`-bit address `bits` lies in the network `net`/`len`.
fn within(bits: u128, net: u128, len: u32, width: u32) -> bool {
    // A shift by the whole width would overflow: `/0` holds everything.
    len == 0 || bits >> (width - len) == net >> (width - len)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(address: &str) -> AddressKind {
        classify(address.parse().unwrap()).kind
    }

    #[test]
    fn each_ipv4_range_has_its_kind() {
        use AddressKind::*;
        for (address, expected) in [
            ("93.184.216.34", Public),
            ("8.8.8.8", Public),
            ("127.0.0.1", Loopback),
            ("127.255.255.254", Loopback),
            ("10.0.0.1", Private),
            ("172.16.0.1", Private),
            ("172.31.255.255", Private),
            ("172.32.0.1", Public),
            ("192.168.1.1", Private),
            ("100.64.0.1", Private),
            ("100.127.255.255", Private),
            ("100.128.0.1", Public),
            ("198.18.0.1", Private),
            ("169.254.169.254", LinkLocal),
            ("0.0.0.0", NotAServer),
            ("0.1.2.3", NotAServer),
            ("192.0.0.8", NotAServer),
            ("192.0.2.1", NotAServer),
            ("198.51.100.7", NotAServer),
            ("203.0.113.9", NotAServer),
            ("224.0.0.1", NotAServer),
            ("239.255.255.250", NotAServer),
            ("240.0.0.1", NotAServer),
            ("255.255.255.255", NotAServer),
        ] {
            assert_eq!(kind(address), expected, "{address}");
        }
    }

    #[test]
    fn each_ipv6_range_has_its_kind() {
        use AddressKind::*;
        for (address, expected) in [
            ("2606:4700:4700::1111", Public),
            ("2a00:1450:4001:80b::200e", Public),
            ("::1", Loopback),
            ("::", NotAServer),
            ("fd00:ec2::254", Private),
            ("fc00::1", Private),
            ("fec0::1", Private),
            ("64:ff9b:1::a00:1", Private),
            ("fe80::1", LinkLocal),
            ("ff02::1", NotAServer),
            ("2001:db8::1", NotAServer),
            ("3fff::1", NotAServer),
            ("2001:0:4136:e378::1", NotAServer),
            ("100::1", NotAServer),
            ("::10.0.0.1", NotAServer),
            ("4000::1", NotAServer),
            ("5f00::1", NotAServer),
        ] {
            assert_eq!(kind(address), expected, "{address}");
        }
    }

    #[test]
    fn an_ipv6_address_carrying_an_ipv4_one_is_judged_by_it() {
        use AddressKind::*;
        for (address, expected) in [
            ("::ffff:10.0.0.1", Private),
            ("::ffff:127.0.0.1", Loopback),
            ("::ffff:169.254.169.254", LinkLocal),
            ("::ffff:8.8.8.8", Public),
            ("64:ff9b::a00:1", Private),
            ("64:ff9b::a9fe:a9fe", LinkLocal),
            ("64:ff9b::808:808", Public),
            ("2002:a00:1::1", Private),
            ("2002:7f00:1::", Loopback),
            ("2002:808:808::1", Public),
        ] {
            assert_eq!(kind(address), expected, "{address}");
        }
        let nat64 = classify("64:ff9b::a9fe:a9fe".parse().unwrap());
        assert_eq!(
            nat64.to_string(),
            "a link-local address (where cloud metadata services answer) \
             (169.254.0.0/16, by way of NAT64 to 169.254.169.254)"
        );
    }

    #[test]
    fn a_prefix_matches_on_its_bits_only() {
        let ten = u32::from(Ipv4Addr::new(10, 9, 8, 7)).into();
        assert!(within(ten, 10 << 24, 8, 32));
        assert!(!within(ten, 11 << 24, 8, 32));
        assert!(within(5, 0, 0, 32));
        assert!(within(7, 7, 32, 32));
        assert!(!within(6, 7, 32, 32));
        assert!(within(u128::MAX, u128::MAX, 128, 128));
    }
}
