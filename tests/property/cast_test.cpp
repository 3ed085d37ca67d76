// impact — property tests of ray_cast and shape_cast (issue 3): closed forms, exact oracles,
// agreement of the three methods, adversarial batteries and certificates.
