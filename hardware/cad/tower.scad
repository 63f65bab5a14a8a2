// Dice tower with baffles, for the game's 10 mm cubes. Printable without supports in two parts:
// the body lies on its back (back wall on the bed, the back-wall baffles rise from it at 55°),
// and the front panel lies on its face with its own baffle. Six M3 screws join them.
// The exit ramp at the bottom drops the cubes out of the front into the tray; the IR break-beam
// (3 mm emitter and receiver) fits the two holes in the side walls just inside the exit.
include <common.scad>

baffle_t = 2.5;
baffle_slope = 35;     // degrees below horizontal: steep enough that a cube never rests on it
baffle_cover = 0.65;   // fraction of the channel's depth each baffle reaches across
ramp_slope = 25;       // the exit ramp is gentler, so cubes leave slowly and stay in the tray
floor_y = 8;           // the exit ramp's front edge above the tower's foot
outer_w = tower_inner + 2 * tower_wall;
depth = tower_inner + tower_wall;   // back wall + channel; the front panel closes it
screw_y = [20, tower_h / 2, tower_h - 20];
ear = 7;               // screw ribs outside the side walls
beam_in = 8;           // the beam crosses this far inside the exit
// the beam runs beam_z above the ramp's surface where it crosses
beam_y = floor_y + baffle_t + beam_in * tan(ramp_slope) + beam_z;

// A slab from the wall face at height y0 reaching `reach` across the channel, falling at `slope`.
module slab(y0, reach, slope, z0) {
    drop = reach * tan(slope);
    hull() {
        translate([tower_wall, y0 - baffle_t, z0]) cube([tower_inner, baffle_t, 0.01]);
        translate([tower_wall, y0 - drop - baffle_t, z0 + reach]) cube([tower_inner, baffle_t, 0.01]);
    }
}

module body() {
    ramp_drop = tower_inner * tan(ramp_slope);
    difference() {
        union() {
            cube([outer_w, tower_h, tower_wall]);                           // back wall
            cube([tower_wall, tower_h, depth]);                             // left wall
            translate([outer_w - tower_wall, 0, 0]) cube([tower_wall, tower_h, depth]);
            slab(0.78 * tower_h, baffle_cover * tower_inner, baffle_slope, tower_wall);
            slab(0.30 * tower_h, baffle_cover * tower_inner, baffle_slope, tower_wall);
            slab(floor_y + ramp_drop + baffle_t, tower_inner, ramp_slope, tower_wall);  // exit ramp
            // full-height ribs outside the side walls carry the front panel's screws
            for (x = [-ear, outer_w], y = screw_y) translate([x, y - ear, 0]) cube([ear, 2 * ear, depth]);
        }
        // break-beam holes across the exit, through both side walls
        translate([-1, beam_y, depth - beam_in]) rotate([0, 90, 0])
            cylinder(d = beam_d, h = outer_w + 2);
        // pilot holes for the front panel's screws, in the side walls' front edges
        for (x = [-ear / 2, outer_w + ear / 2], y = screw_y)
            translate([x, y, depth - 12]) cylinder(d = pilot_m3, h = 13);
    }
}

module front_panel() {
    difference() {
        union() {
            cube([outer_w, tower_h, tower_wall]);
            for (x = [-ear, outer_w], y = screw_y) translate([x, y - ear, 0]) cube([ear, 2 * ear, tower_wall]);
        }
        // the exit: cubes leave here onto the tray
        translate([tower_wall, floor_y - 1, -1]) cube([tower_inner, tower_exit_h + 1, tower_wall + 2]);
        for (x = [-ear / 2, outer_w + ear / 2], y = screw_y)
            translate([x, y, -1]) cylinder(d = screw_m3, h = tower_wall + 2);
    }
    slab(0.54 * tower_h, baffle_cover * tower_inner, baffle_slope, tower_wall);
}

echo(tower_channel = tower_inner, tower_height = tower_h, baffles = 3, exit_height = tower_exit_h,
     beam_above_ramp = beam_z);
body();
translate([outer_w + 2 * ear + 10, 0, 0]) front_panel();
