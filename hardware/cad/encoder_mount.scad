// Spinner encoder mount: a cup screwed under the spinner's base board that holds a 40 mm optical
// encoder (E6B2-C class) shaft-up through the board, and the hub that clamps the 6 mm shaft to
// the spinner disc. Check the three face holes against your encoder's drawing.
// Two parts laid out for printing: the cup (upside down, flange on the bed) and the hub.
include <common.scad>

enc_d = 40;            // encoder body
enc_len = 35;          // body length below the face (the cable leaves at the side)
enc_boss_d = 20;       // centring boss around the shaft
enc_hole_pcd = 30;     // three M3 holes on this circle, 120° apart
shaft_d = 6;
board_screw_d = 4.3;   // M4 into the base board
flange = [70, 70, 5];
cup_wall = 3;
cup_h = enc_len + 15;  // room for the cable's bend under the encoder

hub_d = 24;
hub_h = 14;
hub_flange_d = 40;     // glued or screwed under the spinner disc

module cup() {
    difference() {
        union() {
            translate([-flange[0] / 2, -flange[1] / 2, 0]) cube(flange);
            cylinder(d = enc_d + 2 * cup_wall + 1, h = cup_h);
        }
        // the encoder body hangs inside the cup
        translate([0, 0, flange[2]]) cylinder(d = enc_d + 1, h = cup_h);
        // boss and shaft through the face
        translate([0, 0, -1]) cylinder(d = enc_boss_d + 0.5, h = flange[2] + 2);
        for (a = [90, 210, 330])
            translate([enc_hole_pcd / 2 * cos(a), enc_hole_pcd / 2 * sin(a), -1])
                cylinder(d = screw_m3, h = flange[2] + 2);
        // the cable's way out
        translate([0, -6, cup_h - 12]) cube([enc_d, 12, 13]);
        // M4 holes into the board
        for (x = [-1, 1], y = [-1, 1])
            translate([x * (flange[0] / 2 - 7), y * (flange[1] / 2 - 7), -1])
                cylinder(d = board_screw_d, h = flange[2] + 2);
    }
}

module hub() {
    difference() {
        union() {
            cylinder(d = hub_flange_d, h = 3);
            cylinder(d = hub_d, h = hub_h);
        }
        translate([0, 0, -1]) cylinder(d = shaft_d + 0.1, h = hub_h + 2);  // press fit
        // M3 grub screw across the shaft
        translate([0, 0, hub_h - 5]) rotate([0, 90, 0]) cylinder(d = pilot_m3, h = hub_d);
        for (a = [0, 120, 240])
            translate([16 * cos(a), 16 * sin(a), -1]) cylinder(d = screw_m3, h = 5);
    }
}

echo(encoder_body = [enc_d, enc_len], cup_inside = [enc_d + 1, cup_h - flange[2]], hub_bore = shaft_d + 0.1);
cup();
translate([flange[0] / 2 + hub_flange_d / 2 + 8, 0, 0]) hub();
